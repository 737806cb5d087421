package chat

import "testing"

// redactTestKey is an API key given to the redactor as a literal.
const redactTestKey = "sk-test-ADIKEY-0123456789abcdefXYZ"

// TestRedactor: the built-in patterns, and what they leave alone.
func TestRedactor(t *testing.T) {
	r, err := NewRedactor(nil, false, redactTestKey)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`main.Config{Password: "hunter2"}`:             `main.Config{Password: "[REDACTED]"}`,
		`password=hunter2 user=bob`:                    `password=[REDACTED] user=bob`,
		`{"api_key": "abc123def"}`:                     `{"api_key": "[REDACTED]"}`,
		`Authorization: Bearer abcdefghijklmnop1234`:   `Authorization: Bearer [REDACTED]`,
		`key AKIAIOSFODNN7EXAMPLE used`:                `key [REDACTED] used`,
		`dsn = "postgres://app:s3cr3tpw@db:5432/x"`:    `dsn = "postgres://app:[REDACTED]@db:5432/x"`,
		"k := " + redactTestKey:                        "k := [REDACTED]",
		`"-----BEGIN PRIVATE KEY-----\nMIIE…+40 more"`: `"[REDACTED]"`,
		`tokens = []Token{…}, got = 852, want = 925`:   `tokens = []Token{…}, got = 852, want = 925`,
		`r: &main.Registry{ports: nil, order: nil}`:    `r: &main.Registry{ports: nil, order: nil}`,
		`secret: ""`: `secret: ""`,
		`openai: sk-proj-abcdefghijklmnopqrstuvwx0123 done`: `openai: [REDACTED] done`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
