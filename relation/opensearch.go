package relation

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// openSearchDescription is the part of an OpenSearch 1.1 description a
// relation needs: its URL templates.
type openSearchDescription struct {
	URLs []struct {
		Type     string `xml:"type,attr"`
		Template string `xml:"template,attr"`
	} `xml:"Url"`
}

var optionalParam = regexp.MustCompile(`[?&][A-Za-z_]+=\{[A-Za-z:]+\?\}`)

// ResolveOpenSearch reads an OpenSearch description and returns its HTML
// result-page template in the relation's form: {searchTerms} becomes {q},
// {startPage} or {startPage?} becomes {page}, and other optional
// parameters are dropped.
func ResolveOpenSearch(ctx context.Context, client *http.Client, descURL string, maxBytes int64) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, descURL, nil)
	if err != nil {
		return "", fmt.Errorf("--opensearch %q: %w", descURL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("--opensearch %q: %w", descURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("--opensearch %q: status %d", descURL, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return "", fmt.Errorf("--opensearch %q: %w", descURL, err)
	}
	if int64(len(body)) > maxBytes {
		return "", fmt.Errorf("--opensearch %q: %w: description exceeds %d bytes", descURL, ErrGarbage, maxBytes)
	}
	var d openSearchDescription
	if err := xml.Unmarshal(body, &d); err != nil {
		return "", fmt.Errorf("--opensearch %q: %w: %w", descURL, ErrGarbage, err)
	}
	for _, u := range d.URLs {
		if u.Type != "text/html" || !strings.Contains(u.Template, "{searchTerms}") {
			continue
		}
		t := strings.NewReplacer("{searchTerms}", "{q}", "{startPage?}", "{page}", "{startPage}", "{page}").Replace(u.Template)
		return optionalParam.ReplaceAllString(t, ""), nil
	}
	return "", fmt.Errorf("--opensearch %q: %w: no Url of type text/html with {searchTerms}", descURL, ErrGarbage)
}
