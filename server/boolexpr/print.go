package boolexpr

import (
	"fmt"
	"strconv"
	"strings"
)

// AtomName returns the printed name of atom i: A…Z for the first 26 atoms,
// then #26, #27, … (the parser accepts both forms).
func AtomName(i int) string {
	if i >= 0 && i < 26 {
		return string(rune('A' + i))
	}
	return "#" + strconv.Itoa(i)
}

// String prints e with letters for atoms, e.g. "(A AND B) AND NOT C", the
// notation of DebQUEST's metadata.expression. Parse reads it back.
func (e *Expr) String() string {
	return e.format(AtomName)
}

// Format prints e with the atom texts quoted, e.g.
// `("Mammals" AND "Cetaceans") AND NOT "Miocene mammals"`. An index without
// a text falls back to its letter. ParseWithAtoms reads it back.
func (e *Expr) Format(atoms []string) string {
	return e.format(func(i int) string {
		if i >= 0 && i < len(atoms) {
			return strconv.Quote(atoms[i])
		}
		return AtomName(i)
	})
}

func (e *Expr) format(name func(int) string) string {
	var b strings.Builder
	e.write(&b, name, false)
	return b.String()
}

// write prints e; nested marks that e is an argument of AND/OR, where a
// compound AND/OR must be parenthesised so the tree shape survives a round
// trip (the parser flattens only unparenthesised chains).
func (e *Expr) write(b *strings.Builder, name func(int) string, nested bool) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Op {
	case OpAtom:
		b.WriteString(name(e.Atom))
	case OpNot:
		b.WriteString("NOT ")
		if len(e.Args) != 1 {
			fmt.Fprintf(b, "<NOT with %d args>", len(e.Args))
			return
		}
		a := e.Args[0]
		if a != nil && (a.Op == OpAnd || a.Op == OpOr) {
			b.WriteByte('(')
			a.write(b, name, false)
			b.WriteByte(')')
			return
		}
		a.write(b, name, true)
	case OpAnd, OpOr:
		if nested {
			b.WriteByte('(')
		}
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(" " + string(e.Op) + " ")
			}
			a.write(b, name, true)
		}
		if nested {
			b.WriteByte(')')
		}
	default:
		fmt.Fprintf(b, "<%s>", e.Op)
	}
}

// Parse reads the letter notation String prints: atoms A…Z (case-sensitive
// capitals) or #n, operators AND, OR, NOT (any case), parentheses. NOT binds
// tighter than AND, AND tighter than OR; an unparenthesised chain of the
// same operator becomes one flat node.
func Parse(s string) (*Expr, error) {
	e, atoms, err := parse(s)
	if err != nil {
		return nil, err
	}
	if len(atoms) > 0 {
		return nil, fmt.Errorf("boolexpr: parse %q: quoted atoms need ParseWithAtoms", s)
	}
	return e, nil
}

// ParseWithAtoms reads the quoted-text notation Format prints. Each distinct
// quoted text becomes an atom, numbered in order of first appearance.
// Letter atoms are not allowed, so the indices cannot clash.
func ParseWithAtoms(s string) (*Expr, []string, error) {
	e, atoms, err := parse(s)
	if err != nil {
		return nil, nil, err
	}
	if len(atoms) == 0 {
		return nil, nil, fmt.Errorf("boolexpr: parse %q: no quoted atoms", s)
	}
	return e, atoms, nil
}

type token struct {
	kind string // "(", ")", "AND", "OR", "NOT", "atom", "text"
	atom int
	text string
	pos  int
}

func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			toks = append(toks, token{kind: string(c), pos: i})
			i++
		case c == '"':
			prefix, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return nil, fmt.Errorf("bad quoted atom at byte %d: %w", i, err)
			}
			text, err := strconv.Unquote(prefix)
			if err != nil {
				return nil, fmt.Errorf("bad quoted atom at byte %d: %w", i, err)
			}
			toks = append(toks, token{kind: "text", text: text, pos: i})
			i += len(prefix)
		case c == '#':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == i+1 || j-i > 10 {
				return nil, fmt.Errorf("bad atom number at byte %d", i)
			}
			n, err := strconv.Atoi(s[i+1 : j])
			if err != nil {
				return nil, fmt.Errorf("bad atom number at byte %d: %w", i, err)
			}
			toks = append(toks, token{kind: "atom", atom: n, pos: i})
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			w := s[i:j]
			switch up := strings.ToUpper(w); {
			case up == "AND" || up == "OR" || up == "NOT":
				toks = append(toks, token{kind: up, pos: i})
			case len(w) == 1 && w[0] >= 'A' && w[0] <= 'Z':
				toks = append(toks, token{kind: "atom", atom: int(w[0] - 'A'), pos: i})
			default:
				return nil, fmt.Errorf("unexpected word %q at byte %d", w, i)
			}
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q at byte %d", c, i)
		}
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// parser is a recursive-descent parser over the token list. Quoted atom
// texts get indices after all letter indices would, which ParseWithAtoms
// then checks do not mix.
type parser struct {
	toks  []token
	i     int
	atoms []string
	index map[string]int
	depth int
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

func parse(s string) (*Expr, []string, error) {
	toks, err := tokenize(s)
	if err != nil {
		return nil, nil, fmt.Errorf("boolexpr: parse %q: %w", s, err)
	}
	if len(toks) == 0 {
		return nil, nil, fmt.Errorf("boolexpr: parse %q: empty expression", s)
	}
	p := &parser{toks: toks, index: map[string]int{}}
	e, err := p.or()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("unexpected %s at byte %d", p.toks[p.i].kind, p.toks[p.i].pos)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("boolexpr: parse %q: %w", s, err)
	}
	// Quoted atoms were numbered from 0 in the order seen; mixing them with
	// letters would make indices ambiguous, so ParseWithAtoms rejects that.
	if len(p.atoms) > 0 {
		var letter bool
		e.walk(func(n *Expr, _ int) {
			if n.Op == OpAtom && n.Atom < 0 {
				n.Atom = -n.Atom - 1
			} else if n.Op == OpAtom {
				letter = true
			}
		}, 0)
		if letter {
			return nil, nil, fmt.Errorf("boolexpr: parse %q: mixes letter atoms with quoted atoms", s)
		}
	}
	return e, p.atoms, nil
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].kind
	}
	return ""
}

func (p *parser) chain(op Op, next func() (*Expr, error)) (*Expr, error) {
	first, err := next()
	if err != nil {
		return nil, err
	}
	args := []*Expr{first}
	for p.peek() == string(op) {
		p.i++
		a, err := next()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	if len(args) == 1 {
		return first, nil
	}
	return &Expr{Op: op, Args: args}, nil
}

func (p *parser) or() (*Expr, error)  { return p.chain(OpOr, p.and) }
func (p *parser) and() (*Expr, error) { return p.chain(OpAnd, p.unary) }

func (p *parser) unary() (*Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	if p.i >= len(p.toks) {
		return nil, fmt.Errorf("unexpected end of expression")
	}
	t := p.toks[p.i]
	switch t.kind {
	case "NOT":
		p.i++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return Not(x), nil
	case "(":
		p.i++
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing ) for ( at byte %d", t.pos)
		}
		p.i++
		return x, nil
	case "atom":
		p.i++
		return Atom(t.atom), nil
	case "text":
		p.i++
		idx, ok := p.index[t.text]
		if !ok {
			idx = len(p.atoms)
			p.index[t.text] = idx
			p.atoms = append(p.atoms, t.text)
		}
		// Negative placeholder: fixed up in parse once all atoms are known.
		return Atom(-idx - 1), nil
	}
	return nil, fmt.Errorf("unexpected %s at byte %d", t.kind, t.pos)
}
