package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestDecodeJSONBodyNamesWhatIsWrong: a request body that is not the one
// object asked for is refused with the field, the value and the limit in
// JSON's terms (not the Go types of the handler), and never decoded in
// part.
func TestDecodeJSONBodyNamesWhatIsWrong(t *testing.T) {
	type request struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Share *float64 `json:"share"`
		Tags  []string `json:"tags"`
		Items []struct {
			Bid  float64 `json:"bid"`
			Tags []string
		} `json:"items"`
		Grid [][]int `json:"grid"`
	}
	for _, tc := range []struct {
		body   string
		status int
		want   apiError
	}{
		{`[]`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "JSON array", Limit: "must be one JSON object"}},
		{`"x"`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "JSON string", Limit: "must be one JSON object"}},
		{`{"count":"3"}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "count", Value: "JSON string", Limit: "must be a JSON whole number in [-2^63, 2^63)"}},
		{`{"count":1.5}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "count", Value: "JSON number 1.5", Limit: "must be a JSON whole number in [-2^63, 2^63)"}},
		{`{"share":"most"}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "share", Value: "JSON string", Limit: "must be a JSON number of magnitude below 1.8e308"}},
		{`{"share":1e400}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "share", Value: "JSON number 1e400", Limit: "must be a JSON number of magnitude below 1.8e308"}},
		{`{"name":7}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "name", Value: "JSON number", Limit: "must be a JSON string"}},
		{`{"tags":{}}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "tags", Value: "JSON object", Limit: "must be a JSON array"}},
		{`{"tags":["a",1]}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "tags[1]", Value: "JSON number", Limit: "must be a JSON string"}},
		{`{"items":[{"bid":1},{"bid":"2"}]}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "items[1].bid", Value: "JSON string", Limit: "must be a JSON number of magnitude below 1.8e308"}},
		{`{"items":[{"bid":[1]}]}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "items[0].bid", Value: "JSON array", Limit: "must be a JSON number of magnitude below 1.8e308"}},
		{`{"items":[{"Tags":[]},{"Tags":["x",{}]}]}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "items[1].Tags[1]", Value: "JSON object", Limit: "must be a JSON string"}},
		{`{"grid":[[1],[2, 3, "4"]]}`, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: "grid[1][2]", Value: "JSON string", Limit: "must be a JSON whole number in [-2^63, 2^63)"}},
		{``, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "(empty)", Limit: "must be one JSON object"}},
		{" \n", http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "(empty)", Limit: "must be one JSON object"}},
		{`{"colour":"red"}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "colour", Limit: "one of name, count, share, tags, items, grid"}},
		{`{"items":[{"bid":1},{"bidd":2}]}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "items[1].bidd", Limit: "one of bid, Tags"}},
		{`{"name":"a","name":"b"}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "name", Limit: "given once (member names match in any case)"}},
		{`{"count":1,"Count":0}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "Count", Limit: "given once (member names match in any case)"}},
		{`{"items":[{},{"bid":1,"BID":2}]}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "items[1].BID", Limit: "given once (member names match in any case)"}},
		{`null`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "JSON null", Limit: "must be one JSON object"}},
		{`{"name":"a"} {"name":"b"}`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Limit: "must be one JSON object"}},
		{`{"name":`, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Limit: "must be one JSON object"}},
		{`{"name":"` + strings.Repeat("a", 100) + `"}`, http.StatusRequestEntityTooLarge, apiError{Code: CodeBodyTooLarge, Field: "body", Limit: "at most 64 bytes (test.max_bytes)"}},
	} {
		w := httptest.NewRecorder()
		var got request
		if decodeJSONBody(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body)), &got, 64, "test.max_bytes") {
			t.Errorf("%s: decoded as %+v, want refused", tc.body, got)
			continue
		}
		var answer struct{ Error apiError }
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: answer %q: %v", tc.body, w.Body, err)
		}
		e := answer.Error
		if w.Code != tc.status || e.Code != tc.want.Code || e.Field != tc.want.Field || e.Value != tc.want.Value || e.Limit != tc.want.Limit || e.Message == "" {
			t.Errorf("%s: %d %+v, want %d %+v with a message", tc.body, w.Code, e, tc.status, tc.want)
		}
	}
}

// TestDecodeJSONBodyRefusesABodyCutShort: a body whose sender stopped
// before its Content-Length, or that did not arrive in time, is refused
// saying so, even where what came would decode.
func TestDecodeJSONBodyRefusesABodyCutShort(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"connection closed", io.ErrUnexpectedEOF},
		{"read timed out", os.ErrDeadlineExceeded},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(`{"name":"a"}`), iotest.ErrReader(tc.err)))
		r.ContentLength = 40
		w := httptest.NewRecorder()
		var got struct {
			Name string `json:"name"`
		}
		if decodeJSONBody(w, r, &got, 64, "test.max_bytes") {
			t.Errorf("%s: decoded as %+v, want refused", tc.name, got)
			continue
		}
		var answer struct{ Error apiError }
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: answer %q: %v", tc.name, w.Body, err)
		}
		want := apiError{Code: CodeBadBody, Field: "body", Value: "12 bytes", Limit: "the whole body, within server.http.read_timeout",
			Message: "the body ended after 12 of its 40 bytes (Content-Length)"}
		if w.Code != http.StatusBadRequest || answer.Error != want || got.Name != "" {
			t.Errorf("%s: %d %+v (decoded %+v), want 400 %+v", tc.name, w.Code, answer.Error, got, want)
		}
	}
}

// TestDecodeJSONBodyTakesEachObjectsOwnMembers: the same name in two
// objects (elements of an array, or an object and one inside it) is not
// given twice, a member in another case is the field's, as encoding/json
// reads it, and a map's keys differing in case are two.
func TestDecodeJSONBodyTakesEachObjectsOwnMembers(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		Bid  float64
	}
	var got struct {
		Name   string         `json:"name"`
		Items  []item         `json:"items"`
		Counts map[string]int `json:"counts"`
	}
	body := `{"NAME":"a","items":[{"name":"b","bid":1},{"name":"c","Bid":2}],"counts":{"x":1,"X":2}}`
	w := httptest.NewRecorder()
	if !decodeJSONBody(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &got, 128, "test.max_bytes") {
		t.Fatalf("%s refused: %d %s", body, w.Code, w.Body)
	}
	if want := []item{{"b", 1}, {"c", 2}}; got.Name != "a" || !slices.Equal(got.Items, want) || got.Counts["x"] != 1 || got.Counts["X"] != 2 {
		t.Errorf("decoded %+v, want name a, items %+v and counts x 1, X 2", got, want)
	}
}
