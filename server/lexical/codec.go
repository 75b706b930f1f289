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
	return decode(&sizedReader{buf: data})
}

// DecodeFrom reads an index written by Encode from r, which holds size
// bytes (the stored index is read chunk by chunk: no buffer of the whole
// encoding). r holding fewer bytes is an error; bytes after the first
// size are not read.
func DecodeFrom(r io.Reader, size int64) (*Index, error) {
	return decode(&sizedReader{r: r, buf: make([]byte, 0, 1<<16), left: size})
}

// sizedReader reads an encoded index of a known size, from buf and then
// (when r is not nil) from the next left bytes of r: the decoder bounds
// what it allocates by what is left, and finds trailing or missing bytes.
type sizedReader struct {
	r    io.Reader
	buf  []byte // buffered bytes; buf[pos:] are not read yet
	pos  int
	left int64 // bytes of the index not yet taken from r
}

// Len is the number of bytes of the index not yet read.
func (s *sizedReader) Len() int64 { return s.left + int64(len(s.buf)-s.pos) }

// fill refills buf from r, never past the index's size.
func (s *sizedReader) fill() error {
	if s.left == 0 || s.r == nil {
		return io.EOF
	}
	buf := s.buf[:min(int64(cap(s.buf)), s.left)]
	for {
		n, err := s.r.Read(buf)
		if n > 0 {
			s.buf, s.pos, s.left = buf[:n], 0, s.left-int64(n)
			return nil
		}
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
}

func (s *sizedReader) ReadByte() (byte, error) {
	if s.pos == len(s.buf) {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	b := s.buf[s.pos]
	s.pos++
	return b, nil
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.pos == len(s.buf) {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.buf[s.pos:])
	s.pos += n
	return n, nil
}

func decode(r *sizedReader) (*Index, error) {
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
