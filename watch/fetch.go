package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/deltaq/deltaq/internal/redirect"
)

// Fetched is one fetch of a watched page.
type Fetched struct {
	Status      int
	ContentType string
	Body        []byte
}

// Fetcher gets the current copy of a page: one fetch per group, shared by
// all its sentinels (WebCQ's proxy, §2).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (Fetched, error)
}

// HTTPFetcher fetches with GET through Client, reading at most MaxBytes
// and following at most MaxRedirects redirects in a row
// (crawler.limits.max_redirects, as a check on the crawler's fetches
// does); Client's own CheckRedirect is not used.
type HTTPFetcher struct {
	Client       *http.Client
	MaxBytes     int64
	MaxRedirects int
}

// redirectError is a redirect a fetch does not follow, and why.
type redirectError struct{ why string }

func (e *redirectError) Error() string { return e.why }

// checkRedirect judges the redirect to req as a check on the crawler's
// fetches judges it (redirect.Refusal); via holds the requests so far.
func (f HTTPFetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	chain := make([]string, len(via))
	for i, r := range via {
		chain[i] = r.URL.String()
	}
	if why := redirect.Refusal(chain, req.URL.String(), f.MaxRedirects); why != "" {
		return &redirectError{why}
	}
	return nil
}

// Fetch gets url. A body longer than MaxBytes is an error, not a
// truncated copy: a cut page would look changed.
func (f HTTPFetcher) Fetch(ctx context.Context, url string) (Fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Fetched{}, fmt.Errorf("watch: fetch %s: %w", url, err)
	}
	client := *f.Client
	client.CheckRedirect = f.checkRedirect
	resp, err := client.Do(req)
	if re := (*redirectError)(nil); errors.As(err, &re) {
		return Fetched{}, fmt.Errorf("watch: fetch %s: %w; not followed", url, re)
	}
	if err != nil {
		return Fetched{}, fmt.Errorf("watch: fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.MaxBytes+1))
	if err != nil {
		return Fetched{}, fmt.Errorf("watch: fetch %s: %w", url, err)
	}
	if int64(len(body)) > f.MaxBytes {
		return Fetched{}, fmt.Errorf("watch: fetch %s: body over watch.max_body_bytes = %d", url, f.MaxBytes)
	}
	return Fetched{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body}, nil
}
