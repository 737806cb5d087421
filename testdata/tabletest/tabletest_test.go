package tabletest

import "testing"

func TestFormatSize(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"zero", 0, "0 B"},
		{"just below 1KiB", 1023, "1023 B"},
		{"exactly 1KiB", 1024, "1.0 KiB"},
		{"one and a half KiB", 1536, "1.5 KiB"},
		{"five MiB", 5 << 20, "5.0 MiB"},
		{"three GiB", 3 << 30, "3.0 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatSize(tt.n); got != tt.want {
				t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}
