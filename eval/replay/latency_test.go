package replay

import (
	"context"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

func TestLatency(t *testing.T) {
	a := fixtureArchive(t, archivetest.Fixture{Name: "slow", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: "home\n"},
	}})
	cases := []struct {
		name     string
		latency  time.Duration
		giveUp   time.Duration // client deadline; 0 means none
		path     string
		answered bool
		took     time.Duration // on the bubble's fake clock
	}{
		{"without latency a page is answered at once", 0, 0, "/", true, 0},
		{"a page is answered after the latency", 250 * time.Millisecond, 0, "/", true, 250 * time.Millisecond},
		{"a 404 waits the latency too", 250 * time.Millisecond, 0, "/missing", true, 250 * time.Millisecond},
		{"a client that gives up first gets nothing when it gives up", time.Second, 100 * time.Millisecond, "/", false, 100 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, err := New([]*archive.Archive{a}, Options{Latency: tc.latency})
				if err != nil {
					t.Fatal(err)
				}
				ctx := t.Context()
				if tc.giveUp > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.giveUp)
					defer cancel()
				}
				req := httptest.NewRequestWithContext(ctx, "GET", "http://slow.test"+tc.path, nil)
				rec := httptest.NewRecorder()
				start := time.Now()
				srv.ServeHTTP(rec, req)
				if took := time.Since(start); took != tc.took {
					t.Errorf("answered after %v, want %v", took, tc.took)
				}
				wrote := rec.Body.Len() > 0 || len(rec.Header()) > 0
				if wrote != tc.answered {
					t.Errorf("response written = %v, want %v (headers %v)", wrote, tc.answered, rec.Header())
				}
				st := srv.Stats().Total()
				if n := st.OK + st.NotFound; (n == 1) != tc.answered {
					t.Errorf("%d responses counted, answered = %v", n, tc.answered)
				}
			})
		})
	}
}
