package web

import (
	"crypto/rand"
	"net/http"
	"time"
)

// UserCookie is the cookie that carries a user's random id.
const UserCookie = "deltaq_uid"

// userCookieMaxAge is how long a browser keeps the id: 400 days, the
// longest lifetime current browsers honour for a cookie.
const userCookieMaxAge = 400 * 24 * time.Hour

// userIDLen is the length of ids from crypto/rand.Text: 26 characters of
// the base32 alphabet, 128 bits of randomness.
const userIDLen = 26

// UserFromRequest returns the user id in r's cookie, if it has a
// well-formed one.
func UserFromRequest(r *http.Request) (string, bool) {
	c, err := r.Cookie(UserCookie)
	if err != nil || !validUserID(c.Value) {
		return "", false
	}
	return c.Value, true
}

// UserID returns the user id of r's cookie, or makes a new random one and
// sets it on w (HttpOnly, SameSite=Lax, Secure when r came over TLS). The
// id carries no information about the user; it only lets the searcher keep
// one user's promotion shuffle stable (§5.5) and count a monitored user's
// clicks once (§5.4).
func UserID(w http.ResponseWriter, r *http.Request) string {
	if id, ok := UserFromRequest(r); ok {
		return id
	}
	id := rand.Text()
	http.SetCookie(w, &http.Cookie{
		Name:     UserCookie,
		Value:    id,
		Path:     "/",
		MaxAge:   int(userCookieMaxAge / time.Second),
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	})
	return id
}

func validUserID(s string) bool {
	if len(s) != userIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}
