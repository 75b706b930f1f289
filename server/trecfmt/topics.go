package trecfmt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"boolpool/server/apperr"
)

// Topic is one information need.
type Topic struct {
	ID          string
	Title       string
	Description string
	Narrative   string
}

// TopicsReader streams topics in the classic TREC SGML form:
//
//	<top>
//	<num> Number: 301
//	<title> International Organized Crime
//	<desc> Description:
//	...
//	<narr> Narrative:
//	...
//	</top>
//
// Field text runs until the next tag and may span lines; white space is
// collapsed. Closing field tags (</title>) are accepted, as are the
// conventional "Number:", "Topic:", "Description:" and "Narrative:" labels,
// which are dropped. Text of other tags (<dom>, <con>, … from old TREC
// topics) is ignored.
type TopicsReader struct {
	file string
	sc   *bufio.Scanner
	line int
}

// NewTopicsReader returns a reader of the SGML topics in r.
func NewTopicsReader(r io.Reader, file string) *TopicsReader {
	return &TopicsReader{file: file, sc: newScanner(r)}
}

var tagRE = regexp.MustCompile(`<\s*(/?)\s*([A-Za-z]+)[^>]*>`)

var fieldLabels = map[string]string{
	"num":   "number:",
	"title": "topic:",
	"desc":  "description:",
	"narr":  "narrative:",
}

// Read returns the next topic, or io.EOF after the last one.
func (t *TopicsReader) Read() (Topic, error) {
	var (
		inTop   bool
		startAt int
		field   string // current field tag, "" before the first
		fieldAt = map[string]int{}
		text    = map[string]*strings.Builder{}
	)
	add := func(s string) {
		if field == "" {
			return
		}
		b := text[field]
		if b == nil {
			b = &strings.Builder{}
			text[field] = b
		}
		b.WriteString(s)
		b.WriteByte(' ')
	}
	for t.sc.Scan() {
		t.line++
		line := t.sc.Text()
		rest := line
		for rest != "" {
			loc := tagRE.FindStringSubmatchIndex(rest)
			before := rest
			if loc != nil {
				before = rest[:loc[0]]
			}
			if strings.TrimSpace(before) != "" {
				if !inTop {
					return Topic{}, &LineError{File: t.file, Line: t.line,
						Reason: fmt.Sprintf("text %s outside <top>", quote(strings.TrimSpace(before)))}
				}
				add(before)
			}
			if loc == nil {
				break
			}
			closing := rest[loc[2]:loc[3]] == "/"
			name := strings.ToLower(rest[loc[4]:loc[5]])
			rest = rest[loc[1]:]
			switch {
			case name == "top" && !closing:
				if inTop {
					return Topic{}, &LineError{File: t.file, Line: t.line,
						Reason: fmt.Sprintf("<top> inside the <top> opened on line %d", startAt)}
				}
				inTop, startAt = true, t.line
			case name == "top" && closing:
				if !inTop {
					return Topic{}, &LineError{File: t.file, Line: t.line, Reason: "</top> without <top>"}
				}
				return t.finish(text, fieldAt, startAt)
			case !inTop:
				return Topic{}, &LineError{File: t.file, Line: t.line,
					Reason: fmt.Sprintf("<%s%s> outside <top>", rest0(closing), apperr.Clip(name, maxQuote))}
			case closing:
				field = "" // text after a closing tag belongs to no field
			default:
				if _, dup := fieldAt[name]; dup && fieldLabels[name] != "" {
					return Topic{}, &LineError{File: t.file, Line: t.line, Field: name,
						Reason: fmt.Sprintf("second <%s> in the topic opened on line %d", apperr.Clip(name, maxQuote), startAt)}
				}
				fieldAt[name] = t.line
				field = name
				if fieldLabels[name] == "" {
					field = "" // unknown field: ignore its text
				}
			}
		}
	}
	if err := t.sc.Err(); err != nil {
		return Topic{}, scanError(err, t.file, t.line+1)
	}
	if inTop {
		return Topic{}, &LineError{File: t.file, Line: t.line,
			Reason: fmt.Sprintf("end of file inside the <top> opened on line %d", startAt)}
	}
	return Topic{}, io.EOF
}

func rest0(closing bool) string {
	if closing {
		return "/"
	}
	return ""
}

func (t *TopicsReader) finish(text map[string]*strings.Builder, fieldAt map[string]int, startAt int) (Topic, error) {
	get := func(name string) string {
		b := text[name]
		if b == nil {
			return ""
		}
		s := strings.Join(strings.Fields(b.String()), " ")
		if label := fieldLabels[name]; len(s) >= len(label) && strings.EqualFold(s[:len(label)], label) {
			s = strings.TrimSpace(s[len(label):])
		}
		return s
	}
	tp := Topic{ID: get("num"), Title: get("title"), Description: get("desc"), Narrative: get("narr")}
	if tp.ID == "" {
		line := startAt
		if l, ok := fieldAt["num"]; ok {
			line = l
		}
		return Topic{}, &LineError{File: t.file, Line: line, Field: "num", Reason: "topic has no number"}
	}
	if strings.ContainsAny(tp.ID, " \t") {
		return Topic{}, &LineError{File: t.file, Line: fieldAt["num"], Field: "num",
			Reason: fmt.Sprintf("topic number %s contains white space", quote(tp.ID))}
	}
	return tp, nil
}

// ReadTopics reads all SGML topics from r and rejects duplicate numbers.
func ReadTopics(ctx context.Context, r io.Reader, file string) ([]Topic, error) {
	tr := NewTopicsReader(r, file)
	return collectTopics(ctx, file, "num", tr.Read, tr.lineNo)
}

func (t *TopicsReader) lineNo() int { return t.line }

// Line is the line of the last topic's </top> (its last line).
func (t *TopicsReader) Line() int { return t.line }

func collectTopics(ctx context.Context, file, idField string, read func() (Topic, error), line func() int) ([]Topic, error) {
	var out []Topic
	seen := map[string]int{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tp, err := read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[tp.ID]; dup {
			return nil, &LineError{File: file, Line: line(), Field: idField,
				Reason: fmt.Sprintf("topic %s already defined on line %d", quote(tp.ID), prev)}
		}
		seen[tp.ID] = line()
		out = append(out, tp)
	}
}

// TSVTopicsReader streams topics in the simple "qid<TAB>text" form; the text
// becomes the Title.
type TSVTopicsReader struct {
	file string
	sc   *bufio.Scanner
	line int
}

// NewTSVTopicsReader returns a reader of the tab-separated topics in r.
func NewTSVTopicsReader(r io.Reader, file string) *TSVTopicsReader {
	return &TSVTopicsReader{file: file, sc: newScanner(r)}
}

// Read returns the next topic, or io.EOF after the last one.
func (t *TSVTopicsReader) Read() (Topic, error) {
	for t.sc.Scan() {
		t.line++
		line := strings.TrimRight(t.sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			return Topic{}, &LineError{File: t.file, Line: t.line, Reason: "no tab between qid and text"}
		}
		if id == "" || strings.ContainsAny(id, " \v\f") {
			return Topic{}, &LineError{File: t.file, Line: t.line, Field: "qid",
				Reason: fmt.Sprintf("%s is not a query id", quote(id))}
		}
		if strings.TrimSpace(text) == "" {
			return Topic{}, &LineError{File: t.file, Line: t.line, Field: "text", Reason: "empty query text"}
		}
		return Topic{ID: id, Title: text}, nil
	}
	if err := t.sc.Err(); err != nil {
		return Topic{}, scanError(err, t.file, t.line+1)
	}
	return Topic{}, io.EOF
}

// ReadTSVTopics reads all tab-separated topics from r and rejects duplicate
// ids.
func ReadTSVTopics(ctx context.Context, r io.Reader, file string) ([]Topic, error) {
	tr := NewTSVTopicsReader(r, file)
	return collectTopics(ctx, file, "qid", tr.Read, func() int { return tr.line })
}

// ReadAnyTopics reads SGML topics when the first non-blank byte of r is '<'
// and tab-separated topics otherwise.
func ReadAnyTopics(ctx context.Context, r io.Reader, file string) ([]Topic, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if strings.HasPrefix(strings.TrimLeft(string(head), " \t\r\n"), "<") {
		return ReadTopics(ctx, br, file)
	}
	return ReadTSVTopics(ctx, br, file)
}

const sniffSize = 64 << 10

// TopicsWriter writes topics in the classic SGML form, fields separated
// by blank lines as in the TREC ad hoc topic files. Empty description and
// narrative fields are left out.
type TopicsWriter struct {
	w *bufio.Writer
}

// NewTopicsWriter returns a writer to w. Call Flush when done.
func NewTopicsWriter(w io.Writer) *TopicsWriter { return &TopicsWriter{w: bufio.NewWriter(w)} }

// Write writes one topic. Its number must be one token and its text must
// not contain '<' (the reader would take it for a tag).
func (tw *TopicsWriter) Write(t Topic) error {
	if err := checkToken("topic number", t.ID); err != nil {
		return err
	}
	if strings.Contains(t.Title+t.Description+t.Narrative, "<") {
		return fmt.Errorf("trecfmt: topic %s: text contains '<'", t.ID)
	}
	fmt.Fprintf(tw.w, "<top>\n\n<num> Number: %s\n<title> %s\n", t.ID, t.Title)
	if t.Description != "" {
		fmt.Fprintf(tw.w, "\n<desc> Description:\n%s\n", t.Description)
	}
	if t.Narrative != "" {
		fmt.Fprintf(tw.w, "\n<narr> Narrative:\n%s\n", t.Narrative)
	}
	_, err := fmt.Fprint(tw.w, "\n</top>\n\n")
	return err
}

// Flush writes buffered data to the underlying writer.
func (tw *TopicsWriter) Flush() error { return tw.w.Flush() }

// WriteTopics writes all topics in order (see TopicsWriter).
func WriteTopics(ctx context.Context, w io.Writer, topics []Topic) error {
	tw := NewTopicsWriter(w)
	for _, t := range topics {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := tw.Write(t); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// WriteTSVTopics writes "qid<TAB>title\n" lines.
func WriteTSVTopics(ctx context.Context, w io.Writer, topics []Topic) error {
	bw := bufio.NewWriter(w)
	for _, t := range topics {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := checkToken("qid", t.ID); err != nil {
			return err
		}
		if strings.ContainsAny(t.Title, "\t\r\n") {
			return fmt.Errorf("trecfmt: topic %s: title contains a tab or newline", t.ID)
		}
		fmt.Fprintf(bw, "%s\t%s\n", t.ID, t.Title)
	}
	return bw.Flush()
}
