package export

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"boolpool/server/store"
)

// WriteZip streams a multi-file format (beir) to w as one zip archive
// whose files sit under opt.ZipRoot/ (e.g. "birds-beir/corpus.jsonl"), the layout
// WriteDir writes. Zip entries carry their sizes after the data, so nothing
// is buffered: the archive streams from the database like Write.
func WriteZip(ctx context.Context, st *store.Store, projectID int64, format string, opt Options, w io.Writer) (Counts, error) {
	if !MultiFile(format) {
		return Counts{}, fmt.Errorf("export: %s is a single-file format", format)
	}
	files, err := beirFiles(opt)
	if err != nil {
		return Counts{}, err
	}
	root := opt.ZipRoot
	zw := zip.NewWriter(w)
	var total Counts
	now := time.Now()
	for _, f := range files {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: root + "/" + f.path, Method: zip.Deflate, Modified: now})
		if err != nil {
			return total, fmt.Errorf("export: zip %s: %w", f.path, err)
		}
		bw := bufio.NewWriterSize(fw, 1<<16)
		c, err := f.fn(ctx, st, projectID, bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return total, fmt.Errorf("export: zip %s: %w", f.path, err)
		}
		total.add(c)
	}
	if err := zw.Close(); err != nil {
		return total, fmt.Errorf("export: zip: %w", err)
	}
	return total, nil
}
