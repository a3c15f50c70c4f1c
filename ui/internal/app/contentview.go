package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // images a server may send
	_ "image/jpeg"
	_ "image/png"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/fanout-inspector/inspector/engine"
)

// The bounds of an image shown from a server's content: larger ones are
// described, not decoded.
const (
	maxImageBytes  = 8 << 20
	maxImagePixels = 4096 * 4096
)

// contentView shows one piece of a resource's or a prompt message's
// content: text as text, JSON as a tree, an image as the image, other
// bytes as their size and type.
func contentView(c engine.Content) fyne.CanvasObject {
	head := widget.NewLabel(contentHeading(c))
	head.TextStyle.Italic = true
	head.Truncation = fyne.TextTruncateEllipsis
	var body fyne.CanvasObject
	switch {
	case c.Type == "resource_link":
		return head
	case c.Data != nil && strings.HasPrefix(c.MIMEType, "image/"):
		body = imageView(c.Data)
	case c.Data != nil:
		body = widget.NewLabel(fmt.Sprintf("%s of %s (not shown)", byteSize(len(c.Data)), mimeOr(c.MIMEType)))
	case isJSON(c):
		tree := newJSONTree()
		tree.setJSON([]byte(c.Text))
		body = tree
	default:
		l := widget.NewLabel(c.Text)
		l.Wrapping = fyne.TextWrapWord
		l.TextStyle.Monospace = true
		body = l
	}
	if head.Text == "text" { // plain text needs no heading
		return body
	}
	return container.NewVBox(head, body)
}

// contentHeading says what a content is: its kind, URI and type.
func contentHeading(c engine.Content) string {
	parts := []string{c.Type}
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	if c.URI != "" {
		parts = append(parts, c.URI)
	}
	if c.MIMEType != "" {
		parts = append(parts, c.MIMEType)
	}
	if c.Data != nil {
		parts = append(parts, byteSize(len(c.Data)))
	}
	return strings.Join(parts, " · ")
}

// isJSON says whether a text content is JSON to show as a tree.
func isJSON(c engine.Content) bool {
	t := bytes.TrimSpace([]byte(c.Text))
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return (strings.Contains(c.MIMEType, "json") || c.MIMEType == "") && json.Valid(t)
}

// imageView decodes an image within bounds, or says why it is not shown.
func imageView(data []byte) fyne.CanvasObject {
	if len(data) > maxImageBytes {
		return widget.NewLabel(fmt.Sprintf("an image of %s: too large to show here", byteSize(len(data))))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return widget.NewLabel("an image that cannot be decoded: " + err.Error())
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return widget.NewLabel(fmt.Sprintf("an image of %d×%d pixels: too large to show here", cfg.Width, cfg.Height))
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return widget.NewLabel("an image that cannot be decoded: " + err.Error())
	}
	ci := canvas.NewImageFromImage(img)
	ci.FillMode = canvas.ImageFillContain
	w, h := float32(cfg.Width), float32(cfg.Height)
	if w > 320 {
		w, h = 320, h*320/w
	}
	ci.SetMinSize(fyne.NewSize(max(w, 16), max(h, 16)))
	return ci
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func mimeOr(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

// stringForm is a form of string fields named names, in order, each
// with its description; required ones are marked and checked. It is how
// a prompt's arguments and a template's variables are filled.
func stringForm(names, descriptions []string, required []bool) (*SchemaForm, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var req []string
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		d, _ := json.Marshal(descriptions[i])
		fmt.Fprintf(&b, `%s:{"type":"string","title":%s,"description":%s}`, k, k, d)
		if required[i] {
			req = append(req, n)
		}
	}
	r, _ := json.Marshal(req)
	if req == nil {
		r = []byte("[]")
	}
	fmt.Fprintf(&b, `},"required":%s}`, r)
	return NewSchemaForm(b.Bytes())
}

// formStrings is what a string form holds, as strings.
func formStrings(f *SchemaForm) (map[string]string, error) {
	content, err := f.Content()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(content))
	for k, v := range content {
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}
