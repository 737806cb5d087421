package methods

import "testing"

func TestVisits(t *testing.T) {
	s := &Site{}
	for _, p := range []string{"home", "about", "home", "blog", "home"} {
		s.Visit(p)
	}
	if got := s.Views("home"); got != 3 {
		t.Errorf("Views(home) = %d, want 3 (counters: %v)", got, s.counters)
	}
}
