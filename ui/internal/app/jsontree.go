package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The bounds of what a JSON tree shows, so that a huge payload never
// builds thousands of widgets: each object or array lists its first
// jsonMaxChildren members and says how many more there are; a string
// shows its first jsonMaxString characters; JSON inside strings is
// decoded up to jsonMaxDepth levels deep.
const (
	jsonMaxChildren = 100
	jsonMaxString   = 2000
	jsonMaxDepth    = 32
	// A tree opens its objects and arrays breadth first while the rows
	// shown stay under jsonOpenRows; one whose JSON is longer than
	// jsonOpenBytes starts folded whatever the room, unless it has no
	// more than jsonOpenFew members (a wrapper around the large value).
	jsonOpenRows  = 40
	jsonOpenBytes = 4096
	jsonOpenFew   = 3
)

// jsonNode is one value of a JSON document, its object members in the
// order they came.
type jsonNode struct {
	key      string // "name": an object member; "[3]": an array item; "" the root
	object   bool
	array    bool
	scalar   string // a scalar as JSON text: "text", 12, true, null
	inString bool   // the value came as a JSON string holding JSON text
	size     int    // bytes of the value's JSON text
	children []*jsonNode
}

func (n *jsonNode) container() bool { return n.object || n.array }

// parseJSON reads raw into a tree, decoding strings that hold JSON
// objects or arrays; it fails on text that is not JSON.
func parseJSON(raw []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := readJSON(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	n.size = len(bytes.TrimSpace(raw))
	return n, nil
}

func readJSON(dec *json.Decoder, depth int) (*jsonNode, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jsonNode{}
	switch v := tok.(type) {
	case json.Delim:
		n.object = v == '{'
		n.array = v == '['
		for i := 0; dec.More(); i++ {
			key := fmt.Sprintf("[%d]", i)
			if n.object {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				q, _ := json.Marshal(k)
				key = string(q)
			}
			child, err := readJSON(dec, depth+1)
			if err != nil {
				return nil, err
			}
			child.key = key
			n.children = append(n.children, child)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		if inner := embeddedJSON(v, depth); inner != nil {
			inner.inString = true
			n = inner
		} else {
			b, _ := json.Marshal(v)
			n.scalar = string(b)
		}
	case nil:
		n.scalar = "null"
	default:
		n.scalar = fmt.Sprint(v)
	}
	n.size = int(dec.InputOffset() - start)
	return n, nil
}

// embeddedJSON decodes s when it holds a JSON object or array (a tool's
// text content often does), or returns nil.
func embeddedJSON(s string, depth int) *jsonNode {
	t := strings.TrimSpace(s)
	if depth >= jsonMaxDepth || len(t) < 2 || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	n, err := readJSON(dec, depth+1)
	if err != nil {
		return nil
	}
	return n
}

// summary is how a folded object or array reads: "{3 keys}", "[0 items]".
func (n *jsonNode) summary() string {
	count := len(n.children)
	var s string
	if n.object {
		s = fmt.Sprintf("{%d %s}", count, plural(count, "key", "keys"))
	} else {
		s = fmt.Sprintf("[%d %s]", count, plural(count, "item", "items"))
	}
	if n.inString {
		s += "  (JSON inside a string)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// scalarText is a scalar as shown: long strings cut.
func (n *jsonNode) scalarText() string {
	r := []rune(n.scalar)
	if len(r) <= jsonMaxString {
		return n.scalar
	}
	return string(r[:jsonMaxString]) + fmt.Sprintf("… (%d more characters: Copy has them all)", len(r)-jsonMaxString)
}

// text writes n as indented JSON-like text, with the JSON found inside
// strings decoded, within the same bounds as the tree.
func (n *jsonNode) text(b *strings.Builder, indent string) {
	if n.key != "" {
		b.WriteString(n.key + ": ")
	}
	if !n.container() {
		b.WriteString(n.scalarText())
		return
	}
	open, end := "{", "}"
	if n.array {
		open, end = "[", "]"
	}
	if n.inString {
		b.WriteString("(JSON inside a string) ")
	}
	b.WriteString(open)
	for i, c := range n.children {
		if i == jsonMaxChildren {
			b.WriteString("\n" + indent + "  " + moreText(len(n.children)-i))
			break
		}
		b.WriteString("\n" + indent + "  ")
		c.text(b, indent+"  ")
		if i < len(n.children)-1 {
			b.WriteByte(',')
		}
	}
	if len(n.children) > 0 {
		b.WriteString("\n" + indent)
	}
	b.WriteString(end)
}

func moreText(n int) string { return fmt.Sprintf("… %d more (Copy has them all)", n) }

// jsonTree shows a JSON document as rows, one per value, with each
// object and array folded or unfolded by its arrow; strings holding JSON
// show as the JSON they hold. Rows wrap at words. Rows of folded values
// are only built when unfolded.
type jsonTree struct {
	widget.BaseWidget

	root *jsonNode
	raw  string // the text when it is not JSON
	box  *fyne.Container
	// open says which nodes are unfolded
	open map[*jsonNode]bool
}

// newJSONTree returns an empty tree.
func newJSONTree() *jsonTree {
	t := &jsonTree{box: container.NewVBox()}
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer is a private method to Fyne which links this widget to
// its renderer.
func (t *jsonTree) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.box) }

// setJSON shows raw: "(none)" when empty, the text itself when it is not
// JSON.
func (t *jsonTree) setJSON(raw []byte) {
	t.root, t.raw = nil, ""
	t.open = map[*jsonNode]bool{}
	switch root, err := parseJSON(raw); {
	case len(bytes.TrimSpace(raw)) == 0:
		t.raw = "(none)"
	case err != nil:
		t.raw = string(raw)
	default:
		t.root = root
		t.unfoldFirst()
	}
	t.rebuild()
}

// unfoldFirst unfolds objects and arrays breadth first, the root always,
// while the rows shown stay few, leaving large values folded.
func (t *jsonTree) unfoldFirst() {
	rows := 1
	queue := []*jsonNode{t.root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if !n.container() {
			continue
		}
		shown := min(len(n.children), jsonMaxChildren)
		if n != t.root && (n.size > jsonOpenBytes && shown > jsonOpenFew || rows+shown > jsonOpenRows) {
			continue
		}
		t.open[n] = true
		rows += shown
		queue = append(queue, n.children[:shown]...)
	}
}

// rebuild makes the rows again from the tree and what is unfolded.
func (t *jsonTree) rebuild() {
	t.box.Objects = t.box.Objects[:0]
	if t.root == nil {
		t.box.Add(jsonLabel(t.raw))
	} else {
		t.addRows(t.box, t.root)
	}
	t.box.Refresh()
}

// addRows adds the row of n to box and, if n is unfolded, its members'
// rows indented under it.
func (t *jsonTree) addRows(box *fyne.Container, n *jsonNode) {
	prefix := ""
	if n.key != "" {
		prefix = n.key + ": "
	}
	if !n.container() {
		box.Add(container.New(layout.NewCustomPaddedLayout(0, 0, theme.Size(theme.SizeNameInlineIcon), 0), jsonLabel(prefix+n.scalarText())))
		return
	}
	icon := theme.MenuExpandIcon() // ▸ folded
	if t.open[n] {
		icon = theme.MenuDropDownIcon()
	}
	toggle := widget.NewButtonWithIcon("", icon, func() { t.setOpen(n, !t.open[n]) })
	toggle.Importance = widget.LowImportance
	box.Add(container.NewBorder(nil, nil, toggle, nil, jsonLabel(prefix+n.summary())))
	if !t.open[n] || len(n.children) == 0 {
		return
	}
	inner := container.NewVBox()
	for i, c := range n.children {
		if i == jsonMaxChildren {
			more := jsonLabel(moreText(len(n.children) - i))
			more.Importance = widget.LowImportance
			inner.Add(more)
			break
		}
		t.addRows(inner, c)
	}
	box.Add(container.New(layout.NewCustomPaddedLayout(0, 0, theme.Size(theme.SizeNameInlineIcon), 0), inner))
}

// setOpen folds or unfolds n.
func (t *jsonTree) setOpen(n *jsonNode, open bool) {
	if open {
		t.open[n] = true
	} else {
		delete(t.open, n)
	}
	t.rebuild()
}

// Text is the document as indented text, every value unfolded, with the
// JSON inside strings decoded.
func (t *jsonTree) Text() string {
	if t.root == nil {
		return t.raw
	}
	var b strings.Builder
	t.root.text(&b, "")
	return b.String()
}

// jsonLabel is a row's text: monospace, selectable, wrapped at words.
func jsonLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.TextStyle.Monospace = true
	l.Selectable = true
	l.Wrapping = fyne.TextWrapWord
	return l
}
