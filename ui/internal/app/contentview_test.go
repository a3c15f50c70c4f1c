package app

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPromptContentKinds gets, over streamable HTTP from a Go SDK
// server, a prompt whose messages are an image, an embedded blob and a
// resource link: the image shows as an image of its size, the blob as
// its size and type, the link as its name and URI.
func TestPromptContentKinds(t *testing.T) {
	var pic bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	if err := png.Encode(&pic, img); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "kinds", Version: "1"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "kinds"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: pic.Bytes()}},
			{Role: "assistant", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x://blob", MIMEType: "application/octet-stream", Blob: []byte("twelve bytes")}}},
			{Role: "user", Content: &mcp.ResourceLink{URI: "x://doc", Name: "doc"}},
		}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()

	loop := newMainLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: ts.URL}, engine.DefaultAnswerPolicy(), recorder.New(recorder.Meta{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := newPromptsPanel()
	w := test.NewWindow(p)
	defer w.Close()
	p.setSession(s)
	p.shown(true)
	loop.waitFor(t, "the prompts listed", 15*time.Second, func() bool { return len(p.prompts) == 1 })
	p.list.Select(0)
	test.Tap(p.get)
	loop.waitFor(t, "the messages", 10*time.Second, func() bool { return strings.Contains(shownText(p.messages), "resource_link") })
	text := shownText(p.messages)
	for _, want := range []string{"image · image/png · ", "resource · x://blob · application/octet-stream · 12 bytes", "12 bytes of application/octet-stream (not shown)", "resource_link · doc · x://doc", "assistant"} {
		if !strings.Contains(text, want) {
			t.Errorf("the messages show %q, want %q in them", text, want)
		}
	}
	var shown *canvas.Image
	for _, o := range test.LaidOutObjects(p.messages) {
		if ci, ok := o.(*canvas.Image); ok {
			shown = ci
		}
	}
	if shown == nil || shown.Image.Bounds().Dx() != 40 || shown.Image.Bounds().Dy() != 20 {
		t.Errorf("the image shown: %v, want the 40×20 picture", shown)
	}
}
