package engine

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestScratch(t *testing.T) {
	argv := strings.Fields(os.Getenv("SCR_ARGV"))
	s := newSession(t, argv...)
	for _, cmd := range strings.Split(os.Getenv("SCR_CMDS"), ";") {
		ans, err := s.Exec(context.Background(), cmd)
		if err != nil {
			t.Logf("> %s\nerror: %v", cmd, err)
			continue
		}
		j, _ := json.MarshalIndent(ans.JSON, "", " ")
		if os.Getenv("SCR_JSON") == "" {
			j = nil
		}
		t.Logf("> %s\n%s\n%s", cmd, ans.Text, j)
	}
}
