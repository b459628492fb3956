package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/deltaq/deltaq/ranking"
)

// ClickRecorder records a verified result click; *ranking.Store
// implements it.
type ClickRecorder interface {
	RecordClick(ctx context.Context, url, user string) (newlyAware bool, err error)
}

// RedirectHandler serves ranking.RedirectPath: it verifies the link, records the
// click, and answers 302 to the target; a link that fails verification
// gets 400 with a JSON error (code bad_link).
//
// The click is recorded only when the request's user cookie names the user
// the link was signed for: a link copied to someone else, or replayed by a
// script without the cookie, still redirects but does not count towards
// that user's awareness. A failure to record is logged and the user is
// redirected anyway.
type RedirectHandler struct {
	signer *ranking.Signer
	clicks ClickRecorder
	logger *slog.Logger
}

// NewRedirectHandler returns the handler; a nil logger discards.
func NewRedirectHandler(signer *ranking.Signer, clicks ClickRecorder, logger *slog.Logger) *RedirectHandler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &RedirectHandler{signer: signer, clicks: clicks, logger: logger.With("component", "web")}
}

func (h *RedirectHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := h.signer.Verify(r.URL.RawQuery)
	var bad *ranking.BadLinkError
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadLink, Field: bad.Field, Value: bad.Value, Limit: bad.Limit, Message: err.Error()})
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadLink, Message: err.Error()})
		return
	}
	if user, ok := UserFromRequest(r); ok && user == c.User {
		if _, err := h.clicks.RecordClick(r.Context(), c.Target, c.User); err != nil {
			h.logger.Warn("click not recorded", "url", c.Target, "err", err)
		}
	} else {
		h.logger.Debug("click from another user not recorded", "url", c.Target)
	}
	w.Header().Set("Cache-Control", "no-store")
	// The redirect's own URL carries the query; do not pass it on as the
	// target's Referer.
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, c.Target, http.StatusFound)
}
