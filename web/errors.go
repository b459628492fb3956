package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/internal/excerpt"
	"github.com/deltaq/deltaq/ranking"
)

// Error codes of the JSON API: stable strings a client can branch on, in
// {"error": {"code": ..., "field": ..., "value": ..., "limit": ...,
// "message": ...}}. Only code and message are always present.
const (
	CodeMissingParameter = "missing_parameter" // a required parameter is absent or blank
	CodeBadParameter     = "bad_parameter"     // a parameter or body field is malformed or out of range
	CodeBadQuery         = "bad_query"         // the query's syntax is wrong (unclosed quote, ...)
	CodeBadBody          = "bad_body"          // the request body is not the JSON object expected
	CodeBodyTooLarge     = "body_too_large"
	CodeBadLink          = "bad_link" // a click link that is malformed or not signed by this server
	CodeUnauthorized     = "unauthorized"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeTimeout          = "timeout"
	CodeIndexDamaged     = "index_damaged" // the index cannot be read: rebuild it (503)
	CodeInternal         = "internal"
)

// InputError is bad user input: the server answers 400 naming the field,
// the value given and, when there is one, the limit. Searchers return it
// for query syntax problems (Code CodeBadQuery).
type InputError struct {
	Code    string // "" means CodeBadParameter
	Field   string
	Value   string
	Limit   string
	Message string
	// Whole marks a Message that already names the field, the value and
	// the limit (a watch spec's refusal), which a page then shows alone.
	Whole bool
}

func (e *InputError) Error() string {
	if e.Limit != "" {
		return fmt.Sprintf("%s: %s (limit %s)", e.Field, e.Message, e.Limit)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// asInputError reports whether err is bad input.
func asInputError(err error) (*InputError, bool) {
	var ie *InputError
	ok := errors.As(err, &ie)
	return ie, ok
}

// apiError is the object under "error" in every error answer.
type apiError struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Value   string `json:"value,omitempty"`
	Limit   string `json:"limit,omitempty"`
	Message string `json:"message"`
}

// errorBody is the JSON body of every error answer.
type errorBody struct {
	Error apiError `json:"error"`
}

// maxErrorValue bounds the characters of a value echoed in an error:
// enough to recognize it, not the whole of a 2 KB URL or query.
const maxErrorValue = 200

func writeError(w http.ResponseWriter, status int, e apiError) {
	e.Value = excerpt.Of(e.Value, maxErrorValue)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, errorBody{Error: e})
}

// writeInputError answers 400 for bad input.
func writeInputError(w http.ResponseWriter, ie *InputError) {
	writeRefusal(w, http.StatusBadRequest, ie)
}

// writeRefusal answers status in JSON with what ie says.
func writeRefusal(w http.ResponseWriter, status int, ie *InputError) {
	code := ie.Code
	if code == "" {
		code = CodeBadParameter
	}
	writeError(w, status, apiError{Code: code, Field: ie.Field, Value: ie.Value, Limit: ie.Limit, Message: ie.Message})
}

// refuse answers a request refused before any route took it in the form
// the path's other errors take: JSON under /api/ and on the click links,
// the search page showing the error elsewhere.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, ie *InputError) {
	if isAPI(r) || r.URL.Path == ranking.RedirectPath || r.URL.Path == ads.ClickPath {
		writeRefusal(w, status, ie)
		return
	}
	s.render(w, pageTemplate, status, pageData{Error: ie.Error()})
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// statusOnly keeps the status and headers a handler sets and drops its
// body: the mux's own 404 and 405 answers, re-answered in the project's
// form.
type statusOnly struct {
	header http.Header
	status int
}

func (s *statusOnly) Header() http.Header         { return s.header }
func (s *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusOnly) WriteHeader(code int)        { s.status = code }

// noRoute answers a request no route of the mux takes, h being the mux's
// handler for it and pattern "" (ServeMux.Handler): 405 (with Allow) for
// a known path and another method, 404 for an unknown path, in JSON under
// /api/ and on the search page elsewhere. It reports false when a route
// takes the request.
func (s *Server) noRoute(h http.Handler, pattern string, w http.ResponseWriter, r *http.Request) bool {
	if pattern != "" {
		return false
	}
	rec := &statusOnly{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, r)
	switch {
	case rec.status == http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		s.refuse(w, r, http.StatusMethodNotAllowed, methodRefusal(r, allow))
	case isAPI(r):
		noAPIRoute(w, r)
	default:
		s.refuse(w, r, http.StatusNotFound, &InputError{Code: CodeNotFound, Field: "path", Value: r.URL.Path, Message: "no page at " + r.URL.Path})
	}
	return true
}

// noAPIRoute answers 404 in JSON for an /api/ path no route takes.
func noAPIRoute(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Value: r.URL.Path, Message: "no API route " + r.URL.Path})
}

// methodNotAllowed answers 405 in JSON for a path that takes only the
// methods allow lists (comma-separated, as the Allow header has them).
func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeRefusal(w, http.StatusMethodNotAllowed, methodRefusal(r, allow))
}

// methodRefusal says why r's method is refused on a path that takes only
// the methods allow lists.
func methodRefusal(r *http.Request, allow string) *InputError {
	return &InputError{Code: CodeMethodNotAllowed, Field: "method", Value: r.Method, Limit: allow,
		Message: fmt.Sprintf("%s does not accept %s", r.URL.Path, r.Method)}
}

// bearerKey reads "Authorization: Bearer <key>"; without one it answers
// 401 for realm itself.
func bearerKey(w http.ResponseWriter, r *http.Request, realm string) (string, bool) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer realm=%q", realm))
		writeError(w, http.StatusUnauthorized, apiError{Code: CodeUnauthorized, Message: "missing bearer key"})
		return "", false
	}
	return strings.TrimSpace(key), true
}

// refuseKey answers 401 for a key that is not valid.
func refuseKey(w http.ResponseWriter, realm string) {
	w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer realm=%q, error=\"invalid_token\"", realm))
	writeError(w, http.StatusUnauthorized, apiError{Code: CodeUnauthorized, Message: "invalid key"})
}
