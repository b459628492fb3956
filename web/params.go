package web

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// apiParams lists the query parameters of each API route that takes any,
// by its pattern. serve refuses a parameter its route does not take, so
// that a misspelt ?sizee=3 is not read as the default size, as a JSON
// body's unknown field is not. A route absent takes none. Each handler
// checks the values it reads.
var apiParams = map[string][]string{
	"GET /api/v1/search":                           {"q", "page", "size", "fields"},
	"GET /api/v1/page":                             {"url"},
	"GET /api/v1/feeds":                            {"limit", "after"},
	"GET /api/v1/feeds/{id}/items":                 itemParams,
	"GET /api/v1/river":                            itemParams,
	"GET " + relationsAPIPrefix + "{name}/rows":    {"limit", "stale_gt"},
	"GET " + relationsAPIPrefix + "{name}/changes": {"limit", "since"},
	"GET /api/v1/watches/{id}/diff":                {"n", "view", "format"},
}

// itemParams are the parameters of a request for feed items (itemsQuery).
var itemParams = []string{"since", "limit", "format"}

// readerRoutes are the Atom feeds of watches and alerts. Feed readers add
// parameters of their own to a feed's URL (cache busters, tracking), so
// any is let through; the route reads ?token=.
var readerRoutes = map[string]bool{
	"GET " + userFeedPath:           true,
	"GET /api/v1/watches/{id}/feed": true,
	"GET /api/v1/alerts/{id}/feed":  true,
}

// atomRoutes answer their items as an Atom feed to ?format=atom, a URL a
// feed reader subscribes to and adds its own parameters to, as to
// readerRoutes'. Asked for JSON they refuse a parameter they do not take.
// itemsQuery checks the parameters they read either way.
var atomRoutes = map[string]bool{
	"GET /api/v1/feeds/{id}/items": true,
	"GET /api/v1/river":            true,
}

// unknownParam reports the first parameter of q, in name order, that the
// API route pattern does not take, or else the first it takes that is
// given more than once (none takes a list that way). A pattern without a
// method dispatches on it itself (byMethod) or answers 405, and is not
// checked here.
func unknownParam(pattern string, r *http.Request, q url.Values) *InputError {
	if !strings.Contains(pattern, " ") || readerRoutes[pattern] || atomRoutes[pattern] && q.Get("format") == "atom" {
		return nil
	}
	if ie := onlyParams(pattern, r, q, apiParams[pattern]); ie != nil {
		return ie
	}
	return givenOnce(q, apiParams[pattern]...)
}

// onlyParams reports the first parameter of q, in name order, that is not
// one of params, the parameters of route.
func onlyParams(route string, r *http.Request, q url.Values, params []string) *InputError {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if slices.Contains(params, name) {
			continue
		}
		// A feed token sent without a bearer key, to a watch route, is a
		// credential problem, which the route's authentication answers
		// (401, watchAPI.authed, saying where a token goes). Elsewhere it
		// is a parameter like any other.
		if scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " "); name == "token" && watchKeyRoute(route) && !strings.EqualFold(scheme, "Bearer") {
			continue
		}
		limit := "none"
		if len(params) > 0 {
			limit = strings.Join(params, ", ")
		}
		msg := fmt.Sprintf("not a parameter of %s, which takes %s", route, limit)
		if name == "" {
			// "?=x" or a stray "&=": the error has no field to name.
			msg = fmt.Sprintf("a parameter with no name (%q) is %s", "="+q.Get(name), msg)
		}
		return &InputError{Field: name, Value: q.Get(name), Limit: limit, Message: msg}
	}
	return nil
}

// watchKeyRoute reports whether route, a mux pattern, is one of the watch
// API's, which watchAPI.authed guards.
func watchKeyRoute(route string) bool {
	_, path, _ := strings.Cut(route, " ")
	return strings.HasPrefix(path, "/api/v1/watches") || strings.HasPrefix(path, "/api/v1/alerts")
}
