package web_test

import (
	"io"
	"net/http"
	"strconv"
	"testing"
)

// TestHeadSendsNoLengthOfAnotherBody: a HEAD of a search runs no search,
// so what it would render is not its GET's answer; a Content-Length it
// sends must still be the GET's (RFC 9110 §8.6), or a client sizing the
// answer from it is told a wrong length.
func TestHeadSendsNoLengthOfAnotherBody(t *testing.T) {
	srv := serveDefaultStack(t, map[string][2]string{
		"http://a.test/tar":  {"tar", "Archiving utility: create and extract tar archives."},
		"http://a.test/gzip": {"gzip", "Compress or decompress files; tar archives are often gzipped."},
	})
	for _, path := range []string{"/api/v1/search?q=tar", "/?q=tar"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d, %v", path, res.StatusCode, err)
		}
		head, err := http.Head(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		if n := head.Header.Get("Content-Length"); head.StatusCode != http.StatusOK || n != "" && n != strconv.Itoa(len(body)) {
			t.Errorf("HEAD %s: status %d, Content-Length %s; its GET's body is %d bytes", path, head.StatusCode, n, len(body))
		}
	}
}
