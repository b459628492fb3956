package replay

import (
	"fmt"
	"strings"
	"testing"
)

// TestOptionsBoundSearchResults: K past its bound is refused with the key
// and the range; the bound is accepted.
func TestOptionsBoundSearchResults(t *testing.T) {
	for _, tc := range []struct {
		v    int
		want string // "" when accepted
	}{
		{1 << 62, fmt.Sprintf("web.replay.search.max_results = %d: must be in [page_size (10), %d]", 1<<62, maxSearchResults)},
		{maxSearchResults + 1, fmt.Sprintf("web.replay.search.max_results = %d: must be in [page_size (10), %d]", maxSearchResults+1, maxSearchResults)},
		{maxSearchResults, ""},
	} {
		err := Options{Search: SearchOptions{Enabled: true, PageSize: 10, MaxResults: tc.v}}.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("max_results = %d: Validate() = %v, want %q", tc.v, err, tc.want)
		}
	}
}
