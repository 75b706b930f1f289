package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"boolpool/server/apperr"
)

// rawObject splits one JSON object into its top-level members, keeping each
// value's raw bytes. Unlike encoding/json it tolerates the bare NaN,
// Infinity and -Infinity tokens that Python's json module writes, so that a
// caller can decide per field what they mean. Keys keep their file order.
type rawObject struct {
	keys   []string
	values map[string][]byte
}

func (o *rawObject) get(key string) ([]byte, bool) {
	v, ok := o.values[key]
	return v, ok
}

func parseRawObject(line []byte) (*rawObject, error) {
	p := &scanner{b: line}
	p.ws()
	if !p.eat('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &rawObject{values: map[string][]byte{}}
	p.ws()
	if p.eat('}') {
		return o, p.end()
	}
	for {
		p.ws()
		start := p.i
		if err := p.str(); err != nil {
			return nil, fmt.Errorf("object key: %w", err)
		}
		var key string
		if err := json.Unmarshal(p.b[start:p.i], &key); err != nil {
			return nil, fmt.Errorf("object key: %w", err)
		}
		p.ws()
		if !p.eat(':') {
			return nil, fmt.Errorf("missing ':' after key %s", quote(key))
		}
		p.ws()
		vs := p.i
		if err := p.value(0); err != nil {
			return nil, fmt.Errorf("field %s: %w", apperr.Clip(key, maxQuote), err)
		}
		if _, dup := o.values[key]; dup {
			return nil, fmt.Errorf("field %s: appears twice", apperr.Clip(key, maxQuote))
		}
		if len(o.keys) >= MaxRecordElements {
			return nil, fmt.Errorf("more than %d fields in one object", MaxRecordElements)
		}
		o.keys = append(o.keys, key)
		o.values[key] = p.b[vs:p.i]
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return o, p.end()
		}
		return nil, fmt.Errorf("expected ',' or '}' at byte %d", p.i)
	}
}

// eachArrayElement calls fn with the text of each element of the JSON
// array b, in order, as the elements are found: nothing is collected, so
// memory does not grow with the array. It tolerates bare NaN/Infinity like
// parseRawObject. An error of fn is returned as it is, wrapped in
// elementError; a syntax error is not.
func eachArrayElement(b []byte, fn func(i int, elem []byte) error) error {
	p := &scanner{b: b}
	p.ws()
	if !p.eat('[') {
		return fmt.Errorf("not a JSON array")
	}
	p.ws()
	if p.eat(']') {
		return p.end()
	}
	for i := 0; ; i++ {
		p.ws()
		start := p.i
		if err := p.value(0); err != nil {
			return err
		}
		if err := fn(i, b[start:p.i]); err != nil {
			return elementError{err}
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return p.end()
		}
		return fmt.Errorf("expected ',' or ']' at byte %d", p.i)
	}
}

// elementError is an error of eachArrayElement's fn.
type elementError struct{ err error }

func (e elementError) Error() string { return e.err.Error() }
func (e elementError) Unwrap() error { return e.err }

type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) end() error {
	p.ws()
	if p.i != len(p.b) {
		return fmt.Errorf("unexpected text after the object at byte %d", p.i)
	}
	return nil
}

func (p *scanner) str() error {
	if !p.eat('"') {
		return fmt.Errorf("expected a string at byte %d", p.i)
	}
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '\\':
			p.i += 2
		case '"':
			p.i++
			return nil
		default:
			p.i++
		}
	}
	return fmt.Errorf("unterminated string")
}

const maxDepth = 200

func (p *scanner) value(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested too deeply")
	}
	if p.i >= len(p.b) {
		return fmt.Errorf("missing value")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '{' || c == '[':
		closeC := byte('}')
		if c == '[' {
			closeC = ']'
		}
		p.i++
		p.ws()
		if p.eat(closeC) {
			return nil
		}
		for {
			p.ws()
			if c == '{' {
				if err := p.str(); err != nil {
					return err
				}
				p.ws()
				if !p.eat(':') {
					return fmt.Errorf("missing ':' at byte %d", p.i)
				}
				p.ws()
			}
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat(closeC) {
				return nil
			}
			return fmt.Errorf("expected ',' or '%c' at byte %d", closeC, p.i)
		}
	default:
		// number, true, false, null, NaN, Infinity, -Infinity
		start := p.i
		for p.i < len(p.b) && bytes.IndexByte([]byte(",}] \t\r\n"), p.b[p.i]) < 0 {
			p.i++
		}
		tok := string(p.b[start:p.i])
		switch tok {
		case "true", "false", "null", "NaN", "Infinity", "-Infinity":
			return nil
		}
		var f json.Number
		if err := json.Unmarshal([]byte(tok), &f); err != nil {
			return fmt.Errorf("bad token %s", quote(tok))
		}
		return nil
	}
}

// hasNonFinite reports whether raw JSON text holds a bare NaN or Infinity
// token outside strings.
func hasNonFinite(raw []byte) bool {
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c == 'N' || c == 'I' {
			return true
		}
	}
	return false
}

// nonFiniteToNull replaces bare NaN, Infinity and -Infinity tokens outside
// strings with null, so the rest of the value can be checked as JSON.
func nonFiniteToNull(raw []byte) []byte {
	if !hasNonFinite(raw) {
		return raw
	}
	var out []byte
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			out, i, inStr = appendStringByte(out, raw, i)
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case bytes.HasPrefix(raw[i:], []byte("NaN")):
			out = append(out, "null"...)
			i += len("NaN") - 1
		case bytes.HasPrefix(raw[i:], []byte("-Infinity")):
			out = append(out, "null"...)
			i += len("-Infinity") - 1
		case bytes.HasPrefix(raw[i:], []byte("Infinity")):
			out = append(out, "null"...)
			i += len("Infinity") - 1
		default:
			out = append(out, c)
		}
	}
	return out
}

// appendStringByte appends raw[i], a byte inside a JSON string, to out,
// with the byte after it when it is a backslash; it returns the index of
// the last byte taken and whether the string goes on.
func appendStringByte(out, raw []byte, i int) ([]byte, int, bool) {
	c := raw[i]
	out = append(out, c)
	if c == '\\' && i+1 < len(raw) {
		return append(out, raw[i+1]), i + 1, true
	}
	return out, i, c != '"'
}

// oneLine puts a JSON value that spans lines (pretty-printed) on one
// line, spaced as Python's json.dumps writes by default: a line break and
// the indentation after it become one space after ',' or ':' and nothing
// elsewhere, so that a value kept verbatim (QUEST's "scores", metadata,
// unknown fields) exports as one JSON line. A value on one line is
// returned as it is, and so is text inside strings (where JSON allows no
// raw line break).
func oneLine(raw []byte) []byte {
	if !bytes.ContainsAny(raw, "\r\n") {
		return raw
	}
	out := make([]byte, 0, len(raw))
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			out, i, inStr = appendStringByte(out, raw, i)
		case c == '"':
			inStr = true
			out = append(out, c)
		case isJSONSpace(c):
			j := i
			for j < len(raw) && isJSONSpace(raw[j]) {
				j++
			}
			if run := raw[i:j]; bytes.ContainsAny(run, "\r\n") {
				if n := len(out); n > 0 && (out[n-1] == ',' || out[n-1] == ':') {
					out = append(out, ' ')
				}
			} else {
				out = append(out, run...)
			}
			i = j - 1
		default:
			out = append(out, c)
		}
	}
	return out
}
