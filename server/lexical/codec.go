package lexical

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The persisted form: a magic header, the BM25 parameters, the documents
// (external id, length) and the vocabulary with delta-varint postings.
const magic = "boolpool-lexical-v1\n"

// Encode serialises the index.
func (ix *Index) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { n := binary.PutUvarint(buf[:], x); bw.Write(buf[:n]) }
	str := func(s string) { uv(uint64(len(s))); bw.WriteString(s) }
	bw.WriteString(magic)
	uv(math.Float64bits(ix.params.K1))
	uv(math.Float64bits(ix.params.B))
	uv(uint64(len(ix.docIDs)))
	for i, id := range ix.docIDs {
		str(id)
		uv(uint64(ix.docLen[i]))
	}
	uv(uint64(len(ix.strs)))
	for t, s := range ix.strs {
		str(s)
		uv(uint64(len(ix.docs[t])))
		prev := uint32(0)
		for i, d := range ix.docs[t] {
			uv(uint64(d - prev))
			prev = d
			uv(uint64(ix.tfs[t][i]))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("lexical: encode: %w", err)
	}
	return nil
}

// Bytes returns the encoded index.
func (ix *Index) Bytes() ([]byte, error) {
	var b bytes.Buffer
	if err := ix.Encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode reads an index written by Encode.
func Decode(data []byte) (*Index, error) {
	return DecodeFrom(bytes.NewReader(data), int64(len(data)))
}

// sizedReader reads the next left bytes of r: the decoder bounds what
// it allocates by what is left, and finds trailing or missing bytes.
type sizedReader struct {
	r    *bufio.Reader
	left int64
}

// Len is the number of bytes not yet read.
func (s *sizedReader) Len() int64 { return s.left }

func (s *sizedReader) ReadByte() (byte, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	b, err := s.r.ReadByte()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		s.left--
	}
	return b, err
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// DecodeFrom reads an index written by Encode from r, which holds size
// bytes (the stored index is read chunk by chunk: no buffer of the whole
// encoding). r holding fewer bytes is an error; bytes after the first
// size are ignored (though they may be read into a buffer).
func DecodeFrom(in io.Reader, size int64) (*Index, error) {
	r := &sizedReader{r: bufio.NewReaderSize(in, 1<<16), left: size}
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, errors.New("lexical: decode: not a boolpool lexical index (bad header)")
	}
	var err error
	uv := func() uint64 {
		if err != nil {
			return 0
		}
		var x uint64
		x, err = binary.ReadUvarint(r)
		return x
	}
	str := func() string {
		n := uv()
		if err != nil {
			return ""
		}
		if n > uint64(r.Len()) {
			err = io.ErrUnexpectedEOF
			return ""
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return string(b)
	}
	ix := &Index{terms: map[string]TermID{}}
	ix.params.K1 = math.Float64frombits(uv())
	ix.params.B = math.Float64frombits(uv())
	nd := uv()
	if err == nil && nd > uint64(r.Len()) {
		err = io.ErrUnexpectedEOF
	}
	for i := uint64(0); i < nd && err == nil; i++ {
		ix.docIDs = append(ix.docIDs, str())
		ix.docLen = append(ix.docLen, uint32(uv()))
	}
	nt := uv()
	if err == nil && nt > uint64(r.Len()) {
		err = io.ErrUnexpectedEOF
	}
	for t := uint64(0); t < nt && err == nil; t++ {
		s := str()
		df := uv()
		if err == nil && df > nd {
			err = fmt.Errorf("term %q: df %d > %d documents", s, df, nd)
		}
		docs := make([]uint32, 0, df)
		tfs := make([]uint32, 0, df)
		prev := uint64(0)
		for i := uint64(0); i < df && err == nil; i++ {
			prev += uv()
			docs = append(docs, uint32(prev))
			tfs = append(tfs, uint32(uv()))
		}
		if err == nil && len(docs) > 0 && uint64(docs[len(docs)-1]) >= nd {
			err = fmt.Errorf("term %q: document number out of range", s)
		}
		ix.terms[s] = TermID(len(ix.strs))
		ix.strs = append(ix.strs, s)
		ix.docs = append(ix.docs, docs)
		ix.tfs = append(ix.tfs, tfs)
	}
	if err != nil {
		return nil, fmt.Errorf("lexical: decode: %w", err)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("lexical: decode: %d trailing bytes", r.Len())
	}
	if err := ix.finish(); err != nil {
		return nil, err
	}
	return ix, nil
}
