// Package parser is adi's realistic benchmark: a tokenizer and a recursive
// descent parser for a small JSON-like language (objects, arrays, strings
// with escapes, integers, true, false, null), as a test runs it over a few
// hundred KB of generated input.
package parser

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a token.
type Kind int

const (
	EOF Kind = iota
	LBrace
	RBrace
	LBrack
	RBrack
	Colon
	Comma
	String
	Number
	True
	False
	Null
)

// Token is one lexical token.
type Token struct {
	Kind Kind
	Text string
	Pos  int
}

// Lexer splits its input into tokens.
type Lexer struct {
	src string
	pos int
}

// Next returns the next token.
func (l *Lexer) Next() (Token, error) {
	l.skipSpace()
	if l.pos >= len(l.src) {
		return Token{Kind: EOF, Pos: l.pos}, nil
	}
	start := l.pos
	c := l.src[l.pos]
	switch c {
	case '{', '}', '[', ']', ':', ',':
		l.pos++
		return Token{Kind: punct(c), Text: l.src[start:l.pos], Pos: start}, nil
	case '"':
		s, err := l.str()
		return Token{Kind: String, Text: s, Pos: start}, err
	}
	if c == '-' || isDigit(c) {
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
		return Token{Kind: Number, Text: l.src[start:l.pos], Pos: start}, nil
	}
	for l.pos < len(l.src) && l.src[l.pos] >= 'a' && l.src[l.pos] <= 'z' {
		l.pos++
	}
	switch w := l.src[start:l.pos]; w {
	case "true":
		return Token{Kind: True, Text: w, Pos: start}, nil
	case "false":
		return Token{Kind: False, Text: w, Pos: start}, nil
	case "null":
		return Token{Kind: Null, Text: w, Pos: start}, nil
	}
	return Token{}, fmt.Errorf("offset %d: unexpected %q", start, l.src[start:max(l.pos, start+1)])
}

func punct(c byte) Kind {
	switch c {
	case '{':
		return LBrace
	case '}':
		return RBrace
	case '[':
		return LBrack
	case ']':
		return RBrack
	case ':':
		return Colon
	}
	return Comma
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *Lexer) skipSpace() {
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case ' ', '\t', '\n', '\r':
			l.pos++
		default:
			return
		}
	}
}

// str reads a quoted string, decoding the escapes \" \\ \n \t.
func (l *Lexer) str() (string, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case '"':
			l.pos++
			return b.String(), nil
		case '\\':
			if l.pos+1 >= len(l.src) {
				return "", fmt.Errorf("offset %d: unterminated escape", l.pos)
			}
			b.WriteByte(unescape(l.src[l.pos+1]))
			l.pos += 2
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	return "", fmt.Errorf("offset %d: unterminated string", start)
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}

// Parser builds values from tokens: map[string]any, []any, string, int64,
// bool and nil.
type Parser struct {
	lex Lexer
	tok Token
}

// Parse parses one value that makes up the whole input.
func Parse(src string) (any, error) {
	p := &Parser{lex: Lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.tok.Kind != EOF {
		return nil, fmt.Errorf("offset %d: text after the value", p.tok.Pos)
	}
	return v, nil
}

func (p *Parser) advance() error {
	t, err := p.lex.Next()
	p.tok = t
	return err
}

func (p *Parser) expect(k Kind) error {
	if p.tok.Kind != k {
		return fmt.Errorf("offset %d: unexpected %q", p.tok.Pos, p.tok.Text)
	}
	return p.advance()
}

func (p *Parser) value() (any, error) {
	t := p.tok
	switch t.Kind {
	case LBrace:
		return p.object()
	case LBrack:
		return p.array()
	case String:
		return t.Text, p.advance()
	case Number:
		n, err := strconv.ParseInt(t.Text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("offset %d: %v", t.Pos, err)
		}
		return n, p.advance()
	case True, False:
		return t.Kind == True, p.advance()
	case Null:
		return nil, p.advance()
	}
	return nil, fmt.Errorf("offset %d: unexpected %q, want a value", t.Pos, t.Text)
}

func (p *Parser) object() (map[string]any, error) {
	obj := map[string]any{}
	if err := p.expect(LBrace); err != nil {
		return nil, err
	}
	for p.tok.Kind != RBrace {
		if len(obj) > 0 {
			if err := p.expect(Comma); err != nil {
				return nil, err
			}
		}
		key := p.tok
		if err := p.expect(String); err != nil {
			return nil, err
		}
		if err := p.expect(Colon); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		obj[key.Text] = v
	}
	return obj, p.advance()
}

func (p *Parser) array() ([]any, error) {
	var arr []any
	if err := p.expect(LBrack); err != nil {
		return nil, err
	}
	for p.tok.Kind != RBrack {
		if len(arr) > 0 {
			if err := p.expect(Comma); err != nil {
				return nil, err
			}
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	return arr, p.advance()
}
