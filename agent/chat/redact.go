package chat

import (
	"fmt"
	"regexp"
	"strings"
)

// Redacted replaces a secret in what is sent to a model.
const Redacted = "[REDACTED]"

// secretPatterns are the built-in patterns of values that look like
// secrets. A pattern with a group named "v" redacts only that group (the
// name of a password field stays, its value goes).
var secretPatterns = []string{
	// Private key blocks, whole or cut off by a value limit (recorded
	// strings hold "\n" escapes, not newlines).
	`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`,
	`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[^"'\x60\n]*`,
	// Authorization header values.
	`(?i)\b(?:bearer|basic)\s+(?P<v>[A-Za-z0-9._~+/=-]{12,})`,
	// Vendor API keys and tokens.
	`\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}`,
	`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
	`\bgh[pousr]_[A-Za-z0-9]{30,}\b`,
	`\bgithub_pat_[A-Za-z0-9_]{30,}\b`,
	`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
	`\bAIza[0-9A-Za-z_-]{35}\b`,
	`\bglpat-[A-Za-z0-9_-]{20,}`,
	// JSON Web Tokens.
	`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
	// Credentials in URLs: scheme://user:password@host.
	`(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@"]+:(?P<v>[^\s@/"]+)@`,
	// A password, secret, key or token named as such: a field, variable,
	// map key or flag whose name says so, with a quoted value (or any value
	// for the password names).
	`(?i)(?:password|passwd|pwd|passphrase)\w*"?\s*(?:[:=]|\s=\s)\s*(?P<v>"(?:[^"\\]|\\.)+"|'[^']+'|[^\s,;})\]"']+)`,
	`(?i)(?:secret|api_?key|apikey|access_?key|private_?key|auth_?token|access_?token|refresh_?token|client_?secret|credentials?|\btoken)\w*"?\s*(?:[:=]|\s=\s)\s*(?P<v>"(?:[^"\\]|\\.)+"|'[^']+')`,
}

// Redactor replaces secrets in text bound for a model, an event or an
// error.
type Redactor struct {
	res     []*regexp.Regexp
	literal []string // always replaced (the API key)
}

// NewRedactor compiles the built-in patterns (unless noDefaults) and the
// extra ones; literal strings (the API key) are always replaced.
func NewRedactor(extra []string, noDefaults bool, literal ...string) (*Redactor, error) {
	r := &Redactor{}
	pats := extra
	if !noDefaults {
		pats = append(append([]string(nil), secretPatterns...), extra...)
	}
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("redaction pattern %q: %v", p, err)
		}
		r.res = append(r.res, re)
	}
	for _, l := range literal {
		// A short "key" (a local server's placeholder like "x") would
		// redact ordinary text; such a key is no secret either.
		if len(l) >= 6 {
			r.literal = append(r.literal, l)
		}
	}
	return r, nil
}

// Redact returns s with every secret replaced by [REDACTED].
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	for _, l := range r.literal {
		s = strings.ReplaceAll(s, l, Redacted)
	}
	for _, re := range r.res {
		v := re.SubexpIndex("v")
		if v < 0 {
			s = re.ReplaceAllString(s, Redacted)
			continue
		}
		s = replaceGroup(re, s, v)
	}
	return s
}

// Scrub replaces only the literal secrets (the API key): for the model's
// own text and for errors, where the patterns would be too eager.
func (r *Redactor) Scrub(s string) string {
	if r == nil {
		return s
	}
	for _, l := range r.literal {
		s = strings.ReplaceAll(s, l, Redacted)
	}
	return s
}

// replaceGroup replaces group g of every match of re in s.
func replaceGroup(re *regexp.Regexp, s string, g int) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		st, en := m[2*g], m[2*g+1]
		if st < 0 || st < last {
			continue
		}
		val := s[st:en]
		if val == Redacted || val == `"`+Redacted+`"` {
			continue
		}
		b.WriteString(s[last:st])
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			b.WriteString(val[:1] + Redacted + val[:1])
		} else {
			b.WriteString(Redacted)
		}
		last = en
	}
	b.WriteString(s[last:])
	return b.String()
}
