package offline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// suspect is a statement line with its Ochiai suspiciousness.
type suspect struct {
	line           lineKey
	score          float64
	failed, passed int
}

// ochiai ranks every executed line by Ochiai suspiciousness
//
//	failed(s) / sqrt(totalFailed * (failed(s) + passed(s)))
//
// over the units with coverage, most suspicious first (ties by file and
// line). Lines run by exactly the same tests tie, and ties decide most
// ranks on small packages: the recording breaks them (rules.go).
func ochiai(units []unit) (ranked []suspect, totalFailed int) {
	type counts struct{ f, p int }
	per := map[lineKey]*counts{}
	for _, u := range units {
		if u.nocover {
			continue
		}
		if u.failed {
			totalFailed++
		}
		for l := range u.lines {
			c := per[l]
			if c == nil {
				c = &counts{}
				per[l] = c
			}
			if u.failed {
				c.f++
			} else {
				c.p++
			}
		}
	}
	for l, c := range per {
		s := suspect{line: l, failed: c.f, passed: c.p}
		if totalFailed > 0 && c.f > 0 {
			s.score = float64(c.f) / math.Sqrt(float64(totalFailed*(c.f+c.p)))
		}
		ranked = append(ranked, s)
	}
	slices.SortFunc(ranked, func(a, b suspect) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.line.file, b.line.file), cmp.Compare(a.line.line, b.line.line))
	})
	return ranked, totalFailed
}

// reason says where a suspect's score comes from.
func (s suspect) reason(totalFailed, totalPassed int) string {
	return fmt.Sprintf("Ochiai %.2f: run by %d of %d failing and %d of %d passing tests", s.score, s.failed, totalFailed, s.passed, totalPassed)
}
