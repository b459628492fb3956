package feeds

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"
)

// TestAtomIsValidForEveryItem: the re-exported feed has an author, each
// entry an id that is an IRI (a key written with spaces or "<" escaped,
// one that is an IRI already unchanged) and, without a link, content.
func TestAtomIsValidForEveryItem(t *testing.T) {
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	items := []StoredItem{
		{FeedID: "f1", Key: "g:guid with spaces <x> & 100%", Title: "no link", FirstSeen: at},
		{FeedID: "f1", Key: "l:https://a.test/post?x=1%20y&z=é", Title: "linked", Link: "https://a.test/post", FirstSeen: at},
	}
	var b bytes.Buffer
	if err := WriteAtom(&b, "urn:deltaq:feed:f1", "F", "http://self.test/", items); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Author struct {
			Name string `xml:"name"`
		} `xml:"author"`
		Entries []struct {
			ID   string `xml:"id"`
			Link *struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
			Content *struct {
				Type string `xml:"type,attr"`
				Body string `xml:",chardata"`
			} `xml:"content"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Author.Name == "" || len(got.Entries) != 2 {
		t.Fatalf("author %q, %d entries:\n%s", got.Author.Name, len(got.Entries), b.String())
	}
	e0, e1 := got.Entries[0], got.Entries[1]
	if want := "urn:deltaq:item:f1:g:guid%20with%20spaces%20%3Cx%3E%20&%20100%25"; e0.ID != want {
		t.Errorf("id %q, want %q", e0.ID, want)
	}
	if e0.Link != nil || e0.Content == nil || e0.Content.Type != "text" || e0.Content.Body != "no link" {
		t.Errorf("entry without a link: link %v, content %+v; want its title as text content", e0.Link, e0.Content)
	}
	if want := "urn:deltaq:item:f1:l:https://a.test/post?x=1%20y&z=é"; e1.ID != want || e1.Content != nil || e1.Link == nil {
		t.Errorf("linked entry: id %q (want %q), content %+v, link %v", e1.ID, want, e1.Content, e1.Link)
	}
}
