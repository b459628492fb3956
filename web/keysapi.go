package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/deltaq/deltaq/watch"
)

// maxKeyRequestBytes bounds a key request's body.
const maxKeyRequestBytes = 4 << 10

// keyRoutes adds the making and revoking of watch API keys, served on the
// admin listener only: whoever reaches it makes keys for any user. They
// let the operator do both while the server holds the repository, which
// `deltaq watch key` and `revoke-key` with --data cannot open then.
//
//	POST /api/v1/keys         {"user", "max_watches", "min_every", "max_regex_bytes"}: 201 {"key", "user", …}
//	POST /api/v1/keys/revoke  {"key"}: 200 {"user"}
//
// A limit left out is watch.DefaultKeyLimits'. A revoked key and its feed
// token are refused from the next request on.
func (api *watchAPI) keyRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/keys", api.createKey)
	mux.HandleFunc("POST /api/v1/keys/revoke", api.revokeKey)
}

// keyRequest is the body of POST /api/v1/keys.
type keyRequest struct {
	User          string `json:"user"`
	MaxWatches    *int   `json:"max_watches"`
	MinEvery      string `json:"min_every"` // a Go duration: "30m", "1h"
	MaxRegexBytes *int   `json:"max_regex_bytes"`
}

// MadeKey is the answer to POST /api/v1/keys: the key, shown this once,
// and its limits.
type MadeKey struct {
	Key           string    `json:"key"`
	User          string    `json:"user"`
	MaxWatches    int       `json:"max_watches"`
	MinEvery      string    `json:"min_every"`
	MaxRegexBytes int       `json:"max_regex_bytes"`
	Created       time.Time `json:"created"`
}

func (api *watchAPI) createKey(w http.ResponseWriter, r *http.Request) {
	var q keyRequest
	if !decodeJSONBody(w, r, &q, maxKeyRequestBytes, "a key request") {
		return
	}
	k := watch.DefaultKeyLimits
	k.User = q.User
	if q.MaxWatches != nil {
		k.MaxWatches = *q.MaxWatches
	}
	if q.MaxRegexBytes != nil {
		k.MaxRegexBytes = *q.MaxRegexBytes
	}
	if q.MinEvery != "" {
		d, err := time.ParseDuration(q.MinEvery)
		if err != nil {
			writeInputError(w, &InputError{Field: "min_every", Value: q.MinEvery, Limit: "a duration such as 30m or 1h", Message: "min_every is no duration"})
			return
		}
		k.MinEvery = d
	}
	secret, err := api.watches.CreateKey(r.Context(), k)
	if err != nil {
		api.fail(w, err)
		return
	}
	made, _, err := api.watches.Authenticate(secret)
	if err != nil {
		api.internal(w, err)
		return
	}
	api.logger.Info("watch API key made", "user", made.User)
	writeJSON(w, http.StatusCreated, MadeKey{Key: secret, User: made.User, MaxWatches: made.MaxWatches,
		MinEvery: made.MinEvery.String(), MaxRegexBytes: made.MaxRegexBytes, Created: made.Created})
}

func (api *watchAPI) revokeKey(w http.ResponseWriter, r *http.Request) {
	var q struct {
		Key string `json:"key"`
	}
	if !decodeJSONBody(w, r, &q, maxKeyRequestBytes, "a key request") {
		return
	}
	secret := strings.TrimSpace(q.Key)
	switch {
	case secret == "":
		writeInputError(w, &InputError{Field: "key", Limit: "the key to revoke, " + watch.KeyPrefix + "…", Message: "key is missing"})
		return
	case strings.HasPrefix(secret, watch.FeedTokenPrefix):
		// Only the hash of a key is stored, and a token is made from it:
		// a token does not lead back to its key.
		writeInputError(w, &InputError{Field: "key", Value: watch.FeedTokenPrefix + "…", Limit: "a key, " + watch.KeyPrefix + "…",
			Message: "a feed token is revoked with its key: give the key"})
		return
	}
	k, err := api.watches.RevokeKey(r.Context(), secret)
	if errors.Is(err, watch.ErrNoSuchKey) {
		writeError(w, http.StatusNotFound, apiError{Code: CodeNotFound, Field: "key",
			Message: "no such key here (revoked already, or made on another repository)"})
		return
	}
	if err != nil {
		api.internal(w, err)
		return
	}
	api.logger.Info("watch API key revoked", "user", k.User)
	writeJSON(w, http.StatusOK, map[string]string{"user": k.User})
}
