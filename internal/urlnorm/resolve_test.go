package urlnorm

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	// RFC 3986 §5.4, normalized (fragments dropped, "//g" gets a path).
	base, err := url.Parse("http://a/b/c/d;p?q")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ref, want string }{
		{"g", "http://a/b/c/g"},
		{"./g", "http://a/b/c/g"},
		{"g/", "http://a/b/c/g/"},
		{"/g", "http://a/g"},
		{"//g", "http://g/"},
		{"?y", "http://a/b/c/d;p?y"},
		{"g?y", "http://a/b/c/g?y"},
		{"#s", "http://a/b/c/d;p?q"},
		{"g#s", "http://a/b/c/g"},
		{"g?y#s", "http://a/b/c/g?y"},
		{";x", "http://a/b/c/;x"},
		{"g;x", "http://a/b/c/g;x"},
		{"g;x?y#s", "http://a/b/c/g;x?y"},
		{"", "http://a/b/c/d;p?q"},
		{".", "http://a/b/c/"},
		{"./", "http://a/b/c/"},
		{"..", "http://a/b/"},
		{"../", "http://a/b/"},
		{"../g", "http://a/b/g"},
		{"../..", "http://a/"},
		{"../../", "http://a/"},
		{"../../g", "http://a/g"},
		{"../../../g", "http://a/g"},
		{"../../../../g", "http://a/g"},
		{"/./g", "http://a/g"},
		{"/../g", "http://a/g"},
		{"g.", "http://a/b/c/g."},
		{".g", "http://a/b/c/.g"},
		{"g..", "http://a/b/c/g.."},
		{"..g", "http://a/b/c/..g"},
		{"./../g", "http://a/b/g"},
		{"./g/.", "http://a/b/c/g/"},
		{"g/./h", "http://a/b/c/g/h"},
		{"g/../h", "http://a/b/c/h"},
		{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
		{"g;x=1/../y", "http://a/b/c/y"},
		{"g?y/./x", "http://a/b/c/g?y/./x"},
		{"g?y/../x", "http://a/b/c/g?y/../x"},
		{"g#s/./x", "http://a/b/c/g"},
		{"g#s/../x", "http://a/b/c/g"},
		{"http:g", "http://a/b/c/g"},
		{"?", "http://a/b/c/d;p"},
		{`\g`, "http://a/g"},
		{"  g \n", "http://a/b/c/g"},
		{"https:g", "https://g/"},
		{"https://Other.example:443/x", "https://other.example/x"},
		{"//user@g:80/%7e", "http://g/~"},
	} {
		t.Run("reference "+tc.ref+" resolves to "+tc.want, func(t *testing.T) {
			got, err := Resolve(base, tc.ref)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.ref, err)
			}
			if got != tc.want {
				t.Fatalf("Resolve(%q) = %q, want %q", tc.ref, got, tc.want)
			}
		})
	}
}

func TestResolveRejects(t *testing.T) {
	base, err := url.Parse("https://example.com/dir/page.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, ref string
		want      error
	}{
		{"a mailto link is not followed", "mailto:a@example.com", ErrUnsupportedScheme},
		{"a javascript link is not followed", "javascript:void(0)", ErrUnsupportedScheme},
		{"a data URL is not followed", "data:text/html,hi", ErrUnsupportedScheme},
		{"a tel link is not followed", "tel:+1-555", ErrUnsupportedScheme},
		{"a link with a bad port is invalid", "//example.com:x/", ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(base, tc.ref)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Resolve(%q) = %q, %v; want %v", tc.ref, got, err, tc.want)
			}
		})
	}
}

func TestResolveWithoutBase(t *testing.T) {
	if got, err := Resolve(nil, "HTTP://x.example/a/../b"); err != nil || got != "http://x.example/b" {
		t.Fatalf("an absolute reference: got %q, %v", got, err)
	}
	if _, err := Resolve(nil, "../b"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("a relative reference: err = %v, want ErrUnsupportedScheme", err)
	}
}

func TestResolveRejectsBadBase(t *testing.T) {
	base := &url.URL{Scheme: "ftp", Host: "example.com", Path: "/"}
	if _, err := Resolve(base, "a"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("err = %v, want ErrUnsupportedScheme", err)
	}
}

func TestResolver(t *testing.T) {
	base, err := url.Parse("HTTP://Example.com:80/a/./b/c?q#f")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(base)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Base(); got != "http://example.com/a/b/c?q" {
		t.Fatalf("Base = %q", got)
	}
	for _, ref := range []string{"", "d", "../d", "/d?x", "//other.example/", "#f", "mailto:x"} {
		want, werr := Resolve(base, ref)
		got, gerr := r.Resolve(ref)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("Resolver.Resolve(%q) = %q, %v; Resolve = %q, %v", ref, got, gerr, want, werr)
		}
	}
	if _, err := NewResolver(&url.URL{Scheme: "ftp", Host: "x"}); !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("NewResolver(ftp): err = %v", err)
	}
}

func TestResolverIsSafeForConcurrentUse(t *testing.T) {
	base, err := url.Parse("https://example.com/a/b")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(base)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 8)
	for i := range 8 {
		go func() {
			got, err := r.Resolve("../c?i=" + string(rune('0'+i)))
			if err != nil {
				got = err.Error()
			}
			done <- got
		}()
	}
	for range 8 {
		if got := <-done; !strings.HasPrefix(got, "https://example.com/c?i=") {
			t.Errorf("Resolve = %q", got)
		}
	}
}
