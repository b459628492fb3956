package web

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/relation"
)

// relationsAPI serves a relation's records and their field-level changes
// (package relation; Yang et al., SIGMOD 2010):
//
//	GET /api/v1/relations/{name}/rows?stale_gt=&limit=
//	GET /api/v1/relations/{name}/changes?since=&limit=
type relationsAPI struct {
	store *relation.Store
	cfg   relation.Config
	clock clock.Clock
}

const relationsAPIPrefix = "/api/v1/relations/"

func (api *relationsAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/relations", api.list)
	mux.HandleFunc("GET "+relationsAPIPrefix+"{name}/rows", api.rows)
	mux.HandleFunc("GET "+relationsAPIPrefix+"{name}/changes", api.changes)
}

// relationJSON is one relation in GET /api/v1/relations.
type relationJSON struct {
	Name     string     `json:"name"`
	Search   string     `json:"search"` // the source's result-page URL template
	Item     string     `json:"item,omitempty"`
	Records  int        `json:"records"`
	Missing  int        `json:"missing"`
	Changes  uint64     `json:"changes"` // field changes recorded; /changes?since= reads them
	LastSync *time.Time `json:"last_sync,omitempty"`
}

type relationRowJSON struct {
	ID        string            `json:"id"`
	Fields    map[string]string `json:"fields"`
	LastSync  *time.Time        `json:"last_sync,omitempty"`
	Missing   bool              `json:"missing,omitempty"`
	Staleness float64           `json:"staleness"` // w·F̂: weight × ½λ̂·age², age in relation.unit
	Rate      float64           `json:"rate"`      // λ̂ per relation.unit
	// FetchError is why the last fetch by ID got no answer, so a client
	// sees a record the source keeps failing on, as `relation show` does.
	FetchError   string     `json:"fetch_error,omitempty"`
	FetchErrorAt *time.Time `json:"fetch_error_at,omitempty"`
}

type relationChangeJSON struct {
	Seq    uint64                  `json:"seq"`
	ID     string                  `json:"id"`
	At     time.Time               `json:"at"`
	Fields []relationFieldDiffJSON `json:"fields"`
}

type relationFieldDiffJSON struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
	Text   string `json:"text"` // "price 19.99 → 17.49"
}

// limit reads ?limit=, in [1, relation.api_max_rows], default the
// maximum. serve has checked that no parameter is repeated (apiParams).
func (api *relationsAPI) limit(w http.ResponseWriter, r *http.Request) (int, bool) {
	return limitParam(w, r, api.cfg.APIMaxRows, "relation.api_max_rows")
}

func (api *relationsAPI) fail(w http.ResponseWriter, name string, err error) {
	if errors.Is(err, relation.ErrNoRelation) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "name", Value: name, Message: "no relation of that name"})
		return
	}
	writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "internal error"})
}

func (api *relationsAPI) list(w http.ResponseWriter, r *http.Request) {
	sts, err := api.store.Statuses(r.Context())
	if err != nil {
		api.fail(w, "", err)
		return
	}
	out := make([]relationJSON, len(sts))
	for i, st := range sts {
		out[i] = relationJSON{Name: st.Name, Search: st.Source.Search, Item: st.Source.Item, Records: st.Records, Missing: st.Missing, Changes: st.Changes}
		if !st.LastSync.IsZero() {
			out[i].LastSync = &st.LastSync
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"relations": out})
}

func (api *relationsAPI) rows(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	limit, ok := api.limit(w, r)
	if !ok {
		return
	}
	staleGT := math.Inf(-1)
	if v := r.URL.Query().Get("stale_gt"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			// A staleness w·F̂ is finite: Inf would select nothing, and
			// 1e400 was refused as no number while Inf was taken.
			writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "stale_gt", Value: v, Limit: "a finite number", Message: "stale_gt must be a finite number (w·F̂)"})
			return
		}
		staleGT = f
	}
	def, err := api.store.Definition(name)
	if err != nil {
		api.fail(w, name, err)
		return
	}
	rows, err := api.store.Rows(r.Context(), name)
	if err != nil {
		api.fail(w, name, err)
		return
	}
	opts := api.cfg.SyncOptions(false)
	sorted, stale := relation.Stalest(def, rows, api.clock.Now(), opts)
	out := []relationRowJSON{}
	for i, row := range sorted {
		if stale[i] <= staleGT {
			continue
		}
		j := relationRowJSON{ID: row.ID, Fields: row.Fields, Missing: row.Missing, Staleness: stale[i], Rate: row.Rate.Rate(opts.RatePrior, opts.RatePriorWeight)}
		if j.Fields == nil {
			j.Fields = map[string]string{} // never read: no fields, not null
		}
		if !row.LastSync.IsZero() {
			t := row.LastSync
			j.LastSync = &t
		}
		if row.FetchError != "" {
			t := row.FetchErrorAt
			j.FetchError, j.FetchErrorAt = row.FetchError, &t
		}
		out = append(out, j)
		if len(out) == limit {
			break
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "total": len(rows), "rows": out})
}

// sinceForm is what the since of /changes must be: a seq, which is a
// uint64.
var sinceForm = "a whole number from 0 to " + strconv.FormatUint(math.MaxUint64, 10)

func (api *relationsAPI) changes(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	limit, ok := api.limit(w, r)
	if !ok {
		return
	}
	var since uint64
	if v := r.URL.Query().Get("since"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "since", Value: v, Limit: sinceForm, Message: "since must be " + sinceForm + " (a change's seq)"})
			return
		}
		since = n
	}
	changes, err := api.store.Changes(r.Context(), name, since, limit)
	if err != nil {
		api.fail(w, name, err)
		return
	}
	out := []relationChangeJSON{}
	next := since
	for _, c := range changes {
		j := relationChangeJSON{Seq: c.Seq, ID: c.ID, At: c.At}
		for _, f := range c.Fields {
			j.Fields = append(j.Fields, relationFieldDiffJSON{Field: f.Field, Before: f.Before, After: f.After, Text: f.String()})
		}
		out = append(out, j)
		next = c.Seq
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "changes": out, "next_since": next})
}
