package lexical

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestDecodeFrom: an index read from a stream (one byte per Read, as
// chunk boundaries may fall anywhere) is the one Encode wrote; a stream
// shorter than its stated size, or a size that leaves bytes unread, is an
// error; bytes after the stated size are not read.
func TestDecodeFrom(t *testing.T) {
	ix := toy(t)
	data, err := ix.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeFrom(iotest.OneByteReader(bytes.NewReader(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Bytes()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("DecodeFrom then Encode: %d bytes (%v), want the %d decoded", len(got), err, len(data))
	}
	if _, err := DecodeFrom(bytes.NewReader(data[:len(data)-2]), int64(len(data))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a stream 2 bytes short of its size: %v, want unexpected EOF", err)
	}
	if _, err := DecodeFrom(bytes.NewReader(append(append([]byte{}, data...), 0)), int64(len(data)+1)); err == nil {
		t.Error("a size with a byte the index does not use was accepted")
	}
	tail := bytes.NewReader(append(append([]byte{}, data...), "after"...))
	if back, err := DecodeFrom(tail, int64(len(data))); err != nil || back.NumDocs() != ix.NumDocs() {
		t.Fatalf("an index followed by other bytes: %v", err)
	}
	if rest, _ := io.ReadAll(tail); string(rest) != "after" {
		t.Errorf("DecodeFrom left %q of the stream, want the bytes after the index", rest)
	}
}
