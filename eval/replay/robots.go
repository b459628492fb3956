package replay

import (
	"bytes"
	"net/http"
)

// serveRobots answers /robots.txt: everything is allowed (plus the extra
// lines configured for the archive), and the sitemap is announced on the
// host the client used, port included, so a crawler that reached us
// through a mapped name or port follows the same route to the sitemap.
//
//	User-agent: *
//	<Options.RobotsExtra lines>
//	Allow: /
//
//	Sitemap: http://<Host>/sitemap.xml
func (st *site) serveRobots(w http.ResponseWriter, r *http.Request) (int, error) {
	var b bytes.Buffer
	b.WriteString("User-agent: *\n")
	for _, l := range st.robotsExtra {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("Allow: /\n\nSitemap: http://")
	b.WriteString(r.Host)
	b.WriteString("/sitemap.xml\n")
	st.counters.ok.Add(1)
	st.counters.robots.Add(1)
	return writeBody(w, r, http.StatusOK, textType, b.Bytes())
}
