package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// adminAnswerTimeout bounds a request to the admin listener that does
// quick work (admitting seeds, making or revoking a key), so that a
// listener that accepts and never answers does not hold the command.
const adminAnswerTimeout = 30 * time.Second

// quickAdminLimit names adminAnswerTimeout in the error when it runs out.
const quickAdminLimit = "the bound on a request that admits seeds or makes or revokes a key"

// errDataAndServer refuses a command given both a data directory and the
// admin listener of a process that holds one: it works on one or the other.
var errDataAndServer = errors.New("--data and --server: give one, the data directory here or the process that holds it")

// postAdmin posts body as JSON to path on the admin listener at server
// (--server) and decodes a 2xx answer into out, waiting at most within
// for the whole exchange; limit names that bound in the error. A refusal
// is an error naming the field and value the server names.
func postAdmin(ctx context.Context, server, path string, within time.Duration, limit string, body, out any) error {
	u, err := url.JoinPath(server, path)
	if err != nil || !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("--server %q: must be the http(s) URL of a server's admin listener", server)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("--server %q: %w", server, err)
	}
	req.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeoutCause(ctx, within, fmt.Errorf("no answer to POST %s within %s (%s)", path, within, limit))
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("--server %s: %w", server, unanswered(ctx, err))
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("--server %s: %w", server, unanswered(ctx, err))
	}
	if res.StatusCode/100 == 2 {
		if err := json.Unmarshal(answer, out); err != nil {
			return fmt.Errorf("--server %s: answer %q: %w", server, answer, err)
		}
		return nil
	}
	var refused struct { // web's errorBody
		Error struct{ Field, Value, Message string }
	}
	named := json.Unmarshal(answer, &refused) == nil && refused.Error.Message != ""
	switch {
	case (res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed) && refused.Error.Field == "":
		// No route (a refusal of what was asked names its field).
		return fmt.Errorf("--server %s: no %s there (%s): give the admin listener (server.admin.listen) of a process that offers it", server, path, res.Status)
	case named && refused.Error.Value == "":
		return fmt.Errorf("--server %s: %s: %s", server, refused.Error.Field, refused.Error.Message)
	case named:
		return fmt.Errorf("--server %s: %s %q: %s", server, refused.Error.Field, refused.Error.Value, refused.Error.Message)
	}
	return fmt.Errorf("--server %s: %s: %s", server, res.Status, bytes.TrimSpace(answer))
}

// unanswered replaces err by the cause of ctx's end when the wait ran
// out, which names the bound, rather than "context deadline exceeded".
func unanswered(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return context.Cause(ctx)
	}
	return err
}
