package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"boolpool/server/store"
)

// jsonRecord is one record of a JSON file: a line of JSON lines, or an
// element of a JSON array.
type jsonRecord struct {
	// Line is the line the record starts on (1-based).
	Line int
	// Seq numbers records in file order: the line in JSON lines (as
	// before arrays were read), the element's position (1-based) in an
	// array, where several elements can share a line.
	Seq int
	// Raw is the record's text, valid during the callback only.
	Raw []byte
}

// eachJSON calls fn with each record of in, which is either JSON lines
// (one value per line; blank lines are skipped) or one JSON array, compact
// or pretty-printed over many lines; the first character that is not
// white space decides. Before fn runs, in.line is the record's first
// line, so errors made with in.line name where the record starts; for an
// array element such an error also names the element's position. Bare
// NaN and Infinity tokens pass through (the importers decide per field).
// An array element longer than in.max bytes fails as soon as it passes
// the limit, before it is read whole.
func (in *input) eachJSON(fn func(rec jsonRecord) error) error {
	isArray, err := in.startsWithArray()
	if err != nil {
		return err
	}
	if !isArray {
		return in.eachLine(func(line []byte) error {
			if len(bytes.TrimSpace(line)) == 0 {
				return nil
			}
			return fn(jsonRecord{Line: in.line, Seq: in.line, Raw: line})
		})
	}
	in.tr.max = 0 // elements are bounded instead of lines
	a := &arrayReader{in: in, r: in.r, line: 1}
	return a.each(fn)
}

// eachRecord is eachJSON for an import: ctx is checked before each record
// and im told the record's line.
func (in *input) eachRecord(ctx context.Context, im *store.Importer, fn func(rec jsonRecord) error) error {
	return in.eachJSON(func(rec jsonRecord) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		im.At(rec.Line)
		return fn(rec)
	})
}

// startsWithArray reports whether the first character of in (after a
// UTF-8 byte order mark and white space) is '['. It peeks without
// consuming anything.
func (in *input) startsWithArray() (bool, error) {
	for n := 64; ; n *= 2 {
		n = min(n, in.tr.r.Size())
		b, err := in.tr.r.Peek(n)
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		if i := bytes.IndexFunc(b, func(r rune) bool { return !isJSONSpace(r) }); i >= 0 {
			return b[i] == '[', nil
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return false, &LineError{File: in.name, Line: 1, Reason: "read: " + err.Error()}
		}
		if err != nil || n == in.tr.r.Size() {
			return false, nil
		}
	}
}

func isJSONSpace[T rune | byte](c T) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// arrayReader reads the elements of one JSON array from r, counting
// lines.
type arrayReader struct {
	in   *input
	r    *bufio.Reader
	line int // the line of the next byte
}

func (a *arrayReader) errAt(line int, format string, args ...any) error {
	return &LineError{File: a.in.name, Line: line, Reason: fmt.Sprintf(format, args...)}
}

func (a *arrayReader) readByte() (byte, error) {
	c, err := a.r.ReadByte()
	if err != nil {
		if le := (*LineError)(nil); errors.As(err, &le) {
			return 0, le // the text reader's: not UTF-8, a NUL byte
		}
		if errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, a.errAt(a.line, "read: %v", err)
	}
	if c == '\n' {
		a.line++
	}
	return c, nil
}

func (a *arrayReader) unreadByte(c byte) {
	_ = a.r.UnreadByte()
	if c == '\n' {
		a.line--
	}
}

// nonSpace returns the next byte that is not white space; io.EOF at the
// end.
func (a *arrayReader) nonSpace() (byte, error) {
	for {
		c, err := a.readByte()
		if err != nil || !isJSONSpace(c) {
			return c, err
		}
	}
}

// mustNonSpace is nonSpace where the end of the file is an error.
func (a *arrayReader) mustNonSpace(what string) (byte, error) {
	c, err := a.nonSpace()
	if errors.Is(err, io.EOF) {
		return 0, a.errAt(a.line, "the file ends inside the JSON array: %s (is the file complete?)", what)
	}
	return c, err
}

func (a *arrayReader) each(fn func(rec jsonRecord) error) error {
	c, err := a.mustNonSpace("expected '['")
	if err != nil {
		return err
	}
	if c == 0xef { // a UTF-8 byte order mark
		for i := 0; i < 2; i++ {
			if _, err := a.readByte(); err != nil {
				return a.errAt(1, "read: %v", err)
			}
		}
		if c, err = a.mustNonSpace("expected '['"); err != nil {
			return err
		}
	}
	if c != '[' {
		return a.errAt(a.line, "expected '[' to start the JSON array")
	}
	c, err = a.mustNonSpace("expected an element or ']'")
	if err != nil {
		return err
	}
	for seq := 1; c != ']'; seq++ {
		start := a.line
		raw, err := a.value(c, start)
		if err != nil {
			return err
		}
		if bytes.Contains(raw, []byte(`\u0000`)) {
			return &LineError{File: a.in.name, Line: start,
				Reason: fmt.Sprintf("contains a NUL character (\\u0000), which cannot be stored (array element %d)", seq)}
		}
		a.in.line = start
		if err := fn(jsonRecord{Line: start, Seq: seq, Raw: raw}); err != nil {
			if le := (*LineError)(nil); errors.As(err, &le) && le.Line == start {
				le.Reason += fmt.Sprintf(" (array element %d)", seq)
			}
			return err
		}
		if a.in.prog != nil {
			a.in.prog(a.in.name, a.in.cr.n, a.in.total)
		}
		c, err = a.mustNonSpace(fmt.Sprintf("expected ',' or ']' after element %d", seq))
		if err != nil {
			return err
		}
		switch c {
		case ']':
		case ',':
			if c, err = a.mustNonSpace(fmt.Sprintf("expected an element after ',' after element %d", seq)); err != nil {
				return err
			}
			if c == ']' {
				return a.errAt(a.line, "a ',' before ']' after element %d: JSON allows no trailing comma", seq)
			}
		default:
			return a.errAt(a.line, "expected ',' or ']' after array element %d, found %q", seq, c)
		}
	}
	_, err = a.nonSpace()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	return a.errAt(a.line, "unexpected text after the JSON array's closing ']'")
}

// value reads one JSON value that starts with c and returns its text. It
// only finds where the value ends (strings, nesting); the caller parses
// it. More than in.max bytes fail at once.
func (a *arrayReader) value(c byte, start int) ([]byte, error) {
	max := a.in.max
	buf := []byte{c}
	tooLong := func() error {
		return a.errAt(start, "JSON array element longer than %d bytes (the -max-line limit)", max)
	}
	add := func(c byte) error {
		buf = append(buf, c)
		if int64(len(buf)) > max {
			return tooLong()
		}
		return nil
	}
	eof := func(err error) error {
		if errors.Is(err, io.EOF) {
			return a.errAt(start, "the file ends inside a JSON array element (is the file complete?)")
		}
		return err
	}
	switch c {
	case '{', '[', '"':
		depth, inStr, esc := 1, c == '"', false
		if inStr {
			depth = 0
		}
		for {
			c, err := a.readByte()
			if err != nil {
				return nil, eof(err)
			}
			if err := add(c); err != nil {
				return nil, err
			}
			switch {
			case inStr && esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case inStr && c == '"':
				inStr = false
			case inStr:
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			}
			if !inStr && depth == 0 {
				return buf, nil
			}
		}
	default: // a number, true, false, null, NaN, Infinity, or junk
		for {
			c, err := a.readByte()
			if errors.Is(err, io.EOF) {
				return nil, eof(err)
			}
			if err != nil {
				return nil, err
			}
			if c == ',' || c == ']' || isJSONSpace(c) {
				a.unreadByte(c)
				return buf, nil
			}
			if err := add(c); err != nil {
				return nil, err
			}
		}
	}
}

// decodeObject decodes the record raw (one JSON object) into v, a struct
// whose json tags name the fields read (fields lists them). Other
// top-level fields are not read: each is counted in res.Ignored. A bare
// NaN or Infinity in a read field is an error naming it; in an ignored
// field it does not matter. Errors name in's current line and the field.
func decodeObject(in *input, raw []byte, fields []string, v any, res *Result) error {
	obj, err := parseRawObject(raw)
	if err != nil {
		return lineErr(in.name, in.line, "", "invalid JSON: %v", err)
	}
	known := obj.pick(fields, "", res)
	for _, k := range known.keys {
		if hasNonFinite(known.values[k]) {
			return lineErr(in.name, in.line, k, "bare NaN/Infinity is not JSON")
		}
	}
	return strictUnmarshal(in, orderedObject(known.keys, known.values), v)
}

// pick returns the fields of o named in fields; every other field is
// counted in res.Ignored under prefix+name.
func (o *rawObject) pick(fields []string, prefix string, res *Result) *rawObject {
	out := &rawObject{values: map[string][]byte{}}
	for _, k := range o.keys {
		read := false
		for _, f := range fields {
			if f == k {
				read = true
				break
			}
		}
		if !read {
			res.ignore(prefix + k)
			continue
		}
		out.keys = append(out.keys, k)
		out.values[k] = o.values[k]
	}
	return out
}

// maxIgnoredNames bounds how many distinct ignored field names a result
// lists (a file with random keys must not grow it without end).
const maxIgnoredNames = 50

// ignore counts one record in which field was present and not read.
func (r *Result) ignore(field string) {
	if r.Ignored == nil {
		r.Ignored = map[string]int{}
	}
	if len(field) > maxQuote {
		field = strings.ToValidUTF8(field[:maxQuote], "") + "…"
	}
	if _, ok := r.Ignored[field]; !ok && len(r.Ignored) >= maxIgnoredNames {
		field = "(other fields)"
	}
	r.Ignored[field]++
}

// keepFirst sets *dst to v unless an earlier alias of the same field set
// it already; false when it drops v, a later non-empty alias (which the
// caller records as ignored).
func keepFirst(dst *string, v string) bool {
	if *dst == "" {
		*dst = v
		return true
	}
	return v == ""
}

// IgnoredSummary describes Ignored in one line, fields in name order,
// e.g. `"score" (12 records), "version" (3 records)`; "" when nothing was
// ignored.
func (r Result) IgnoredSummary() string {
	if len(r.Ignored) == 0 {
		return ""
	}
	names := make([]string, 0, len(r.Ignored))
	for k := range r.Ignored {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		n := r.Ignored[k]
		unit := "records"
		if n == 1 {
			unit = "record"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", quote(k), n, unit))
	}
	return strings.Join(parts, ", ")
}

// strictUnmarshal decodes one JSON record, naming the field on type errors.
func strictUnmarshal(in *input, raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return lineErr(in.name, in.line, te.Field, "must be %s, not JSON %s", te.Type.String(), te.Value)
		}
		return lineErr(in.name, in.line, "", "invalid JSON: %v", err)
	}
	return nil
}
