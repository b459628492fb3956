package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/deltaq/deltaq/ads"
)

// adClickHandler serves ads.ClickPath: GET with a signed click URL
// verifies and charges the click (ads.Store.Click), then redirects (302)
// to the ad's target. A malformed or forged URL gets 400 with a JSON
// error; other methods get 405.
func adClickHandler(store *ads.Store, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, apiError{Code: CodeMethodNotAllowed, Value: r.Method, Limit: http.MethodGet, Message: "click URLs accept GET only"})
			return
		}
		res, err := store.Click(r.Context(), r.URL.RawQuery)
		var bad *ads.BadClickError
		switch {
		case errors.As(err, &bad):
			writeError(w, http.StatusBadRequest, apiError{Code: CodeBadLink, Field: bad.Field, Value: bad.Value, Limit: bad.Limit, Message: err.Error()})
			return
		case err != nil && res.URL == "":
			logger.Error("ads click", "err", err)
			writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "internal error"})
			return
		case err != nil:
			// The user still gets where they clicked; the charge is lost.
			logger.Error("ads click", "err", err)
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, res.URL, http.StatusFound)
	})
}
