package relation

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
)

// openSearchDescription is the part of an OpenSearch 1.1 description a
// relation needs: its URL templates.
type openSearchDescription struct {
	URLs []struct {
		Type       string `xml:"type,attr"`
		Template   string `xml:"template,attr"`
		PageOffset string `xml:"pageOffset,attr"`
	} `xml:"Url"`
}

// templateParam is one {name} or {name?} of an OpenSearch template; the
// name may carry a namespace prefix ({geo:box?}).
var templateParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_.:-]*)(\??)\}`)

// ResolveOpenSearch reads an OpenSearch description and returns its HTML
// result-page template in the relation's form (see relationTemplate).
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
		return "", fmt.Errorf("--opensearch %q: the description exceeds %d bytes (relation.max_bytes)", descURL, maxBytes)
	}
	var d openSearchDescription
	if err := xml.Unmarshal(body, &d); err != nil {
		return "", fmt.Errorf("--opensearch %q: not an OpenSearch description: %w", descURL, err)
	}
	var types []string
	for _, u := range d.URLs {
		types = append(types, fmt.Sprintf("%q", u.Type))
		// The media type alone: "text/html; charset=utf-8" is HTML too.
		if mt, _, err := mime.ParseMediaType(u.Type); err != nil || mt != "text/html" || !strings.Contains(u.Template, "{searchTerms}") {
			continue
		}
		if u.PageOffset != "" && u.PageOffset != "1" {
			return "", fmt.Errorf("--opensearch %q: template %q counts pages from pageOffset %s: a relation counts them from 1", descURL, u.Template, u.PageOffset)
		}
		t, err := relationTemplate(u.Template)
		if err != nil {
			return "", fmt.Errorf("--opensearch %q: %w", descURL, err)
		}
		return t, nil
	}
	return "", fmt.Errorf("--opensearch %q: no Url of type text/html with {searchTerms} (Url types: %s)", descURL, strings.Join(types, ", "))
}

// relationTemplate turns an OpenSearch template into the relation's form:
// {searchTerms} becomes {q}, {startPage} or {startPage?} becomes {page},
// a query parameter whose value is only another optional parameter is
// dropped (with its '&' or its '?'), and any other optional parameter is
// filled with nothing, as OpenSearch 1.1 allows. A required parameter the
// client cannot fill ({startIndex}, {count}, ...) is an error: the client
// sends only keywords and 1-based page numbers.
func relationTemplate(t string) (string, error) {
	for _, m := range templateParam.FindAllStringSubmatch(t, -1) {
		if m[2] == "" && m[1] != "searchTerms" && m[1] != "startPage" {
			return "", fmt.Errorf("template %q: required parameter {%s}: a relation fills only {searchTerms} and {startPage}", t, m[1])
		}
	}
	base, query, hasQuery := cutQuery(t)
	if hasQuery {
		var kept []string
		for _, p := range strings.Split(query, "&") {
			_, v, _ := strings.Cut(p, "=")
			if m := templateParam.FindStringSubmatch(v); m != nil && m[0] == v && m[2] == "?" && m[1] != "startPage" {
				continue
			}
			kept = append(kept, p)
		}
		t = base
		if len(kept) > 0 {
			t += "?" + strings.Join(kept, "&")
		}
	}
	t = strings.NewReplacer("{searchTerms}", "{q}", "{startPage?}", "{page}", "{startPage}", "{page}").Replace(t)
	return templateParam.ReplaceAllStringFunc(t, func(p string) string {
		if strings.HasSuffix(p, "?}") {
			return ""
		}
		return p // {q} and {page}
	}), nil
}

// cutQuery cuts a template at the '?' that starts its query, skipping the
// '?' of an optional parameter ({count?}).
func cutQuery(t string) (base, query string, found bool) {
	depth := 0
	for i, r := range t {
		switch r {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case '?':
			if depth == 0 {
				return t[:i], t[i+1:], true
			}
		}
	}
	return t, "", false
}
