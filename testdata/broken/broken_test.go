package broken

import "testing"

func TestShout(t *testing.T) {
	if got := Shout("hi"); got != "HI!" {
		t.Errorf("Shout(hi) = %q, want %q", got, "HI!")
	}
}

func TestLength(t *testing.T) {
	if got := Length("abc"); got != 3 {
		t.Errorf("Length(abc) = %d, want 3", got)
	}
}
