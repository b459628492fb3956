package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestANamelessParameterIsNamedAsSuch: "?q=tar&=x" has a parameter with no
// name, which the error's field cannot name; its message says so, with
// what was given.
func TestANamelessParameterIsNamedAsSuch(t *testing.T) {
	srv := serveDefaultStack(t, map[string][2]string{
		"http://a.test/tar": {"tar", "Archiving utility: create and extract tar archives."},
	})
	for _, c := range []struct{ query, given string }{{"q=tar&=x", `"=x"`}, {"q=tar&=", `"="`}} {
		res, err := http.Get(srv.URL + "/api/v1/search?" + c.query)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Field, Value, Limit, Message string }
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if e := body.Error; err != nil || res.StatusCode != http.StatusBadRequest || e.Limit != "q, page, size, fields" ||
			!strings.Contains(e.Message, "no name") || !strings.Contains(e.Message, c.given) {
			t.Errorf("?%s: %d %+v (%v), want 400 saying a parameter has no name, with %s", c.query, res.StatusCode, e, err, c.given)
		}
	}
}
