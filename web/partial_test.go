package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestPartialResultsAreMarkedInTheAPIAndThePage(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 3, estimate: true, partial: []string{"n2", "n3"}}, nil)
	code, body, _ := get(t, srv, "/api/v1/search?q=web")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var res Response
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Partial, ",") != "n2,n3" || res.TotalExact {
		t.Errorf("partial %v, total exact %v; want [n2 n3], false", res.Partial, res.TotalExact)
	}
	code, body, _ = get(t, srv, "/?q=web")
	if code != http.StatusOK || !strings.Contains(body, `id="partial"`) || !strings.Contains(body, "n2, n3 did not answer") {
		t.Errorf("status %d; the page does not say which nodes did not answer:\n%s", code, body)
	}
	// A complete answer says nothing of the kind.
	_, body, _ = get(t, newTestServer(t, &fakeSearch{total: 3}, nil), "/?q=web")
	if strings.Contains(body, `id="partial"`) {
		t.Errorf("a complete answer is marked partial")
	}
	if _, body, _ = get(t, newTestServer(t, &fakeSearch{total: 3}, nil), "/api/v1/search?q=web"); strings.Contains(body, `"partial"`) {
		t.Errorf("a complete answer's JSON has a partial field: %s", body)
	}
}
