package replay

import (
	"fmt"
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestOptionsBoundSearchResults: K past its bound is refused with the key
// and the range; the bound is accepted.
func TestOptionsBoundSearchResults(t *testing.T) {
	fresh := func() Options { return Options{Search: SearchOptions{Enabled: true, PageSize: 10}} }
	boundstest.Check(t, "web.replay.", fresh, (*Options).Validate, []boundstest.Setting[Options]{
		{Key: "search.max_results", Hi: maxSearchResults, Limit: fmt.Sprintf("must be in [page_size (10), %d]", maxSearchResults),
			Set: func(o *Options, v int64) { o.Search.MaxResults = int(v) }},
	})
}
