package trecfmt

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode"
)

func TestEncodeID(t *testing.T) {
	for _, c := range []struct{ id, tok string }{
		{"Merida wren", "Merida_wren"},
		{"A b", "A_b"},
		{"A_b", "A_b"},         // no white space: unchanged
		{"50%_off", "50%_off"}, // likewise
		{"A_b c", "A%5Fb_c"},
		{"100% sure", "100%25_sure"},
		{"a\tb", "a%09b"},
		{"a  b", "a__b"},
		{" lead", "_lead"},
		{"a\u00a0b", "a%C2%A0b"},
		{"Zoë Saldaña", "Zoë_Saldaña"},
		{"bad\xffbyte x", "bad%FFbyte_x"},
	} {
		if got := EncodeID(c.id); got != c.tok {
			t.Errorf("EncodeID(%q) = %q, want %q", c.id, got, c.tok)
		}
		if NeedsEncoding(c.id) {
			if back, ok := DecodeID(c.tok); !ok || back != c.id {
				t.Errorf("DecodeID(%q) = %q, %v, want %q", c.tok, back, ok, c.id)
			}
		}
	}
	for _, tok := range []string{"%", "%4", "%zz", "%41b", "a%2fb"} {
		if got, ok := DecodeID(tok); ok {
			t.Errorf("DecodeID(%q) = %q, want not EncodeID's form", tok, got)
		}
	}
}

// setExists is an exists callback over a fixed set of whitespace-free ids.
func setExists(ids ...string) func([]string) (map[string]bool, error) {
	return func(toks []string) (map[string]bool, error) {
		out := map[string]bool{}
		for _, t := range toks {
			for _, id := range ids {
				if t == id {
					out[t] = true
				}
			}
		}
		return out, nil
	}
}

// TestIDMapCollisions: a project with "A b", "A_b" and "A_b~2": the id
// written unchanged keeps its token, the spaced one takes the first free
// suffix; every token is white-space free and decodes to its id.
func TestIDMapCollisions(t *testing.T) {
	literal := []string{"A_b", "A_b~2", "plain"}
	spaced := []string{"A b", "Merida wren", "A_b c", "x\ty"}
	m, err := BuildIDMap(append(append([]string{}, literal...), spaced...), setExists(literal...))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A b": "A_b~3", "Merida wren": "Merida_wren", "A_b c": "A%5Fb_c", "x\ty": "x%09y",
		"A_b": "A_b", "A_b~2": "A_b~2", "plain": "plain"}
	seen := map[string]string{}
	for id, tok := range want {
		got := m.Encode(id)
		if got != tok {
			t.Errorf("Encode(%q) = %q, want %q", id, got, tok)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q both encode to %q", id, other, got)
		}
		seen[got] = id
		if back := m.Decode(got); back != id {
			t.Errorf("Decode(%q) = %q, want %q", got, back, id)
		}
	}
	// Other tools' plain form: "A_b_c" for "A_b c" (unambiguous), but "A_b"
	// is the literal id.
	if got := m.Decode("A_b_c"); got != "A_b c" {
		t.Errorf("Decode(plain A_b_c) = %q", got)
	}
	if got := m.Decode("unknown_id"); got != "unknown_id" {
		t.Errorf("Decode(unknown) = %q", got)
	}
	var buf bytes.Buffer
	n, err := WriteIDMap(&buf, nil, m)
	if err != nil {
		t.Fatal(err)
	}
	wantFile := IDMapHeader + "\ndoc\tA%5Fb_c\tA_b c\ndoc\tA_b~3\tA b\ndoc\tMerida_wren\tMerida wren\ndoc\tx%09y\tx\\ty\n"
	if n != 4 || buf.String() != wantFile {
		t.Errorf("id map (%d lines):\n%s\nwant:\n%s", n, buf.String(), wantFile)
	}
}

// TestIDMapPlainAmbiguous: two ids with the same plain form ("a b" and
// "a\tb" → "a_b") are not guessed from it; the escaped tokens still decode.
func TestIDMapPlainAmbiguous(t *testing.T) {
	m, err := BuildIDMap([]string{"a_b c", "a b\tc"}, setExists())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Decode("a_b_c"); got != "a_b_c" {
		t.Errorf("ambiguous plain form decoded to %q", got)
	}
	if got := m.Decode("a_b%09c"); got != "a b\tc" {
		t.Errorf("Decode = %q", got)
	}
}

// TestEncodedLinesRead: qrels and run lines written with encoded ids read
// back as the same tokens, one field each.
func TestEncodedLinesRead(t *testing.T) {
	ctx := context.Background()
	ids := []string{"Merida wren", "A_b", "A b", "tab\there"}
	m, err := BuildIDMap(ids, setExists("A_b"))
	if err != nil {
		t.Fatal(err)
	}
	var qrels, run []string
	var ql []Qrel
	var rl []RunLine
	for i, id := range ids {
		ql = append(ql, Qrel{QueryID: "q1", DocID: m.Encode(id), Rel: i})
		rl = append(rl, RunLine{QueryID: "q1", DocID: m.Encode(id), Rank: i + 1, Score: float64(-i), Tag: "r"})
	}
	var qb, rb bytes.Buffer
	if err := WriteQrels(ctx, &qb, ql); err != nil {
		t.Fatal(err)
	}
	if err := WriteRun(ctx, &rb, rl); err != nil {
		t.Fatal(err)
	}
	gotQ, err := ReadQrels(ctx, &qb, "q")
	if err != nil {
		t.Fatal(err)
	}
	gotR, err := ReadRun(ctx, &rb, "r")
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		qrels = append(qrels, m.Decode(gotQ[i].DocID))
		run = append(run, m.Decode(gotR[i].DocID))
		if gotQ[i].Rel != i {
			t.Errorf("line %d rel %d", i, gotQ[i].Rel)
		}
		_ = id
	}
	if strings.Join(qrels, "|") != strings.Join(ids, "|") || strings.Join(run, "|") != strings.Join(ids, "|") {
		t.Errorf("read back qrels %q run %q, want %q", qrels, run, ids)
	}
}

// FuzzIDEncoding: EncodeID gives one white-space-free token, unchanged for
// ids that need no encoding, and DecodeID inverts it; an IDMap over a set
// of ids (with the ids written unchanged as existing) is injective and
// decodes every token to its id.
func FuzzIDEncoding(f *testing.F) {
	for _, s := range []string{"Merida wren", "A_b", "A b", "%41 x", "a\tb\x00", "\xff ", "_", " ", "A_b~2"} {
		f.Add(s, "A_b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, id := range []string{a, b} {
			tok := EncodeID(id)
			if id != "" && (tok == "" || strings.IndexFunc(tok, unicode.IsSpace) >= 0) {
				t.Fatalf("EncodeID(%q) = %q is not one token", id, tok)
			}
			if !NeedsEncoding(id) {
				if tok != id {
					t.Fatalf("EncodeID(%q) = %q changed a plain id", id, tok)
				}
				continue
			}
			if back, ok := DecodeID(tok); !ok || back != id {
				t.Fatalf("DecodeID(EncodeID(%q)) = %q, %v", id, back, ok)
			}
		}
		set := []string{a, b, EncodeID(a), EncodeID(b), EncodeID(a) + "~2"}
		var plain []string
		for _, id := range set {
			if !NeedsEncoding(id) {
				plain = append(plain, id)
			}
		}
		m, err := BuildIDMap(set, setExists(plain...))
		if err != nil {
			t.Fatal(err)
		}
		tokens := map[string]string{}
		for _, id := range set {
			tok := m.Encode(id)
			if other, ok := tokens[tok]; ok && other != id {
				t.Fatalf("%q and %q both encode to %q", id, other, tok)
			}
			tokens[tok] = id
			if id != "" && strings.IndexFunc(tok, unicode.IsSpace) >= 0 {
				t.Fatalf("token %q of %q has white space", tok, id)
			}
			if back := m.Decode(tok); back != id {
				t.Fatalf("Decode(Encode(%q)) = %q (token %q)", id, back, tok)
			}
		}
	})
}
