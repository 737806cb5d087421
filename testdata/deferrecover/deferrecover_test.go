package deferrecover

import "testing"

func TestSummarizeEmpty(t *testing.T) {
	if got := Summarize(nil); got != (Stats{}) {
		t.Errorf("Summarize(nil) = %+v, want the zero Stats", got)
	}
}

func TestReport(t *testing.T) {
	got := Report("api", []int{40, 12, 95, 33, 61, 18, 47})
	want := "api: min 12ms, median 40ms, max 95ms"
	if got != want {
		t.Errorf("Report = %q, want %q", got, want)
	}
}
