package watch

import (
	"context"
	"fmt"
	"io"
	"net/http"
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

// HTTPFetcher fetches with GET through Client, reading at most MaxBytes.
type HTTPFetcher struct {
	Client   *http.Client
	MaxBytes int64
}

// Fetch gets url. A body longer than MaxBytes is an error, not a
// truncated copy: a cut page would look changed.
func (f HTTPFetcher) Fetch(ctx context.Context, url string) (Fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Fetched{}, fmt.Errorf("watch: fetch %s: %w", url, err)
	}
	resp, err := f.Client.Do(req)
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
