package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/deltaq/deltaq/crawler"
)

// SeedFunc admits start URLs into the crawl the server's process runs
// (deltaq run, demo), returning how many were new; a URL that cannot be
// crawled is a *crawler.SeedError (crawler.NormalizeSeeds), and then none
// is admitted.
type SeedFunc func(ctx context.Context, urls []string) (int, error)

// Bounds of a seeding request.
const (
	maxSeedBytes = 1 << 20
	maxSeeds     = 10000
)

// seedRoutes adds the seeding of a running crawl, served on the admin
// listener only: seeds widen the crawl's scope to their hosts.
//
//	POST /api/v1/seeds  {"urls": ["https://…", …]}: 200 {"given", "new"}
func (s *Server) seedRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/seeds", s.handleSeeds)
}

func (s *Server) handleSeeds(w http.ResponseWriter, r *http.Request) {
	var q struct {
		URLs []string `json:"urls"`
	}
	if !decodeJSONBody(w, r, &q, maxSeedBytes, "a seeding request") {
		return
	}
	if len(q.URLs) == 0 || len(q.URLs) > maxSeeds {
		writeInputError(w, &InputError{Field: "urls", Value: strconv.Itoa(len(q.URLs)) + " URLs", Limit: fmt.Sprintf("1 to %d", maxSeeds),
			Message: fmt.Sprintf("urls must hold 1 to %d URLs", maxSeeds)})
		return
	}
	n, err := s.deps.Seed(r.Context(), q.URLs)
	var se *crawler.SeedError
	if errors.As(err, &se) {
		writeInputError(w, &InputError{Field: "urls", Value: se.URL, Limit: "absolute http or https URLs", Message: se.Err.Error() + "; no seed was admitted"})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"given": len(q.URLs), "new": n})
}
