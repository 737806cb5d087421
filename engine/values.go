package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// Limits bound what is recorded and rendered. Every limit is an option of
// the command line and of the DAP launch request.
type Limits struct {
	// MaxFrames stops recording new frames after this many (the run goes on).
	MaxFrames int
	// MaxSteps cuts an FLT after this many statements.
	MaxSteps int
	// LoopKeepFirst and LoopKeepLast are the loop iterations kept in full
	// in an FLT; the others are summarised.
	LoopKeepFirst, LoopKeepLast int
	// MaxString is the number of bytes of a string value kept.
	MaxString int
	// MaxElems is the number of elements of arrays, slices and maps kept.
	MaxElems int
	// MaxDepth is how deep nested values (pointers, structs) are followed.
	MaxDepth int
	// MaxOutput is how many bytes of each output stream are kept.
	MaxOutput int
}

// DefaultLimits are the limits used when none are given.
var DefaultLimits = Limits{
	MaxFrames:     200_000,
	MaxSteps:      5_000,
	LoopKeepFirst: 1,
	LoopKeepLast:  1,
	MaxString:     64,
	MaxElems:      16,
	MaxDepth:      3,
	MaxOutput:     1 << 20,
}

// withDefaults fills zero limits from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxFrames > 0 {
		d.MaxFrames = l.MaxFrames
	}
	if l.MaxSteps > 0 {
		d.MaxSteps = l.MaxSteps
	}
	if l.LoopKeepFirst != 0 || l.LoopKeepLast != 0 {
		d.LoopKeepFirst, d.LoopKeepLast = l.LoopKeepFirst, l.LoopKeepLast
	}
	if l.MaxString > 0 {
		d.MaxString = l.MaxString
	}
	if l.MaxElems > 0 {
		d.MaxElems = l.MaxElems
	}
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxOutput > 0 {
		d.MaxOutput = l.MaxOutput
	}
	return d
}

func (l Limits) loadConfig() proc.LoadConfig {
	return proc.LoadConfig{
		FollowPointers:     true,
		MaxVariableRecurse: l.MaxDepth,
		MaxStringLen:       l.MaxString,
		MaxArrayValues:     l.MaxElems,
		MaxStructFields:    -1,
	}
}

// convertVars turns Delve's variables into recorded values.
func convertVars(vars []*proc.Variable) []trace.Value {
	out := make([]trace.Value, 0, len(vars))
	for _, v := range vars {
		av := api.ConvertVar(v)
		out = append(out, convertValue(av))
	}
	return out
}

// maxText caps the rendering of one value; a deep value of a library type
// (a *testing.T) would otherwise fill the screen.
const maxText = 400

// convertValue renders one api.Variable, recursively.
func convertValue(v *api.Variable) trace.Value {
	tv := convertValue1(v)
	if len(tv.Text) > maxText {
		cut := maxText
		for cut > 0 && !utf8.RuneStart(tv.Text[cut]) {
			cut--
		}
		tv.Text = tv.Text[:cut] + "…"
		tv.Cut = true
	}
	return tv
}

func convertValue1(v *api.Variable) trace.Value {
	tv := trace.Value{Name: v.Name, Type: v.Type, Len: v.Len, Cap: v.Cap}
	if v.Unreadable != "" && v.Kind != reflect.Func {
		tv.Kind = trace.KindOther
		tv.Error = v.Unreadable
		tv.Text = "<unreadable: " + v.Unreadable + ">"
		return tv
	}
	switch v.Kind {
	case reflect.Bool:
		tv.Kind, tv.Text = trace.KindBool, v.Value
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		tv.Kind, tv.Text = trace.KindInt, v.Value
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		tv.Kind, tv.Text = trace.KindUint, v.Value
	case reflect.Float32, reflect.Float64:
		tv.Kind, tv.Text = trace.KindFloat, v.Value
	case reflect.Complex64, reflect.Complex128:
		tv.Kind, tv.Text = trace.KindComplex, v.Value
	case reflect.String:
		tv.Kind = trace.KindString
		tv.Text = strconv.Quote(v.Value)
		if more := v.Len - int64(len(v.Value)); more > 0 {
			tv.Cut = true
			tv.Text += fmt.Sprintf("…+%d more", more)
		}
	case reflect.Ptr, reflect.UnsafePointer:
		tv.Kind = trace.KindPointer
		switch {
		case len(v.Children) == 0 || v.Children[0].Addr == 0:
			tv.Nil, tv.Text = true, "nil"
		case v.Children[0].OnlyAddr:
			tv.Cut = true
			tv.Text = "&" + shortType(strings.TrimPrefix(v.Type, "*")) + "{…}"
		default:
			c := convertValue(&v.Children[0])
			c.Name = "*" + v.Name
			tv.Children = []trace.Value{c}
			tv.Cut = c.Cut
			tv.Text = "&" + c.Text
			if c.Kind == trace.KindStruct && isLibraryType(c.Type) {
				// A *testing.T or *sync.WaitGroup says nothing about the
				// program's state but fills the line; its fields stay
				// in Children. A test's name says which subtest a frame
				// runs, as the instrumenting recorder shows it.
				tv.Text = "&" + shortType(c.Type) + "{…}"
				if name, n, ok := testName(&v.Children[0]); ok {
					text, _ := trace.AppendTestText(nil, v.Type, name, n)
					tv.Text, tv.Cut = string(text), true
				}
			}
		}
	case reflect.Struct:
		tv.Kind = trace.KindStruct
		convertChildren(&tv, v, func(c trace.Value) string { return c.Name + ": " + c.Text })
		tv.Text = shortType(v.Type) + tv.Text
		if isLibraryType(v.Type) {
			tv.Text = shortType(v.Type) + "{…}" // see isLibraryType
		}
	case reflect.Array, reflect.Slice:
		tv.Kind = trace.KindSlice
		if v.Kind == reflect.Array {
			tv.Kind = trace.KindArray
		}
		if v.Kind == reflect.Slice && v.Base == 0 {
			tv.Nil, tv.Text = true, "nil"
			break
		}
		for i := range v.Children {
			v.Children[i].Name = "[" + strconv.Itoa(i) + "]"
		}
		convertChildren(&tv, v, func(c trace.Value) string { return c.Text })
		tv.Text = shortType(v.Type) + tv.Text
	case reflect.Map:
		tv.Kind = trace.KindMap
		if v.Base == 0 {
			tv.Nil, tv.Text = true, "nil"
			break
		}
		var parts []string
		for i := 0; i+1 < len(v.Children); i += 2 {
			k := convertValue(&v.Children[i])
			e := convertValue(&v.Children[i+1])
			e.Name = k.Text
			tv.Children = append(tv.Children, e)
			tv.Cut = tv.Cut || k.Cut || e.Cut
			parts = append(parts, k.Text+": "+e.Text)
		}
		if shown := int64(len(v.Children) / 2); shown < v.Len {
			tv.Cut = true
			parts = append(parts, fmt.Sprintf("…+%d more", v.Len-shown))
		}
		tv.Text = shortType(v.Type) + "{" + strings.Join(parts, ", ") + "}"
	case reflect.Interface:
		tv.Kind = trace.KindInterface
		if len(v.Children) == 0 || v.Children[0].Kind == reflect.Invalid || v.Children[0].Type == "" && v.Children[0].Addr == 0 {
			tv.Nil, tv.Text = true, "nil"
			break
		}
		c := convertValue(&v.Children[0])
		c.Name = v.Name
		tv.Children = []trace.Value{c}
		tv.Cut = c.Cut
		tv.Text = c.Text
		if c.Kind != trace.KindPointer && c.Kind != trace.KindStruct && c.Kind != trace.KindMap &&
			c.Kind != trace.KindSlice && c.Kind != trace.KindArray {
			tv.Text = shortType(c.Type) + "(" + c.Text + ")"
		}
	case reflect.Chan:
		tv.Kind = trace.KindChan
		if v.Base == 0 {
			tv.Nil, tv.Text = true, "nil"
			break
		}
		// Delve loads a channel as its hchan: the queue's length and
		// capacity are its qcount and dataqsiz fields.
		tv.Len, tv.Cap = 0, 0
		for i := range v.Children {
			switch c := &v.Children[i]; c.Name {
			case "qcount":
				tv.Len, _ = strconv.ParseInt(c.Value, 10, 64)
			case "dataqsiz":
				tv.Cap, _ = strconv.ParseInt(c.Value, 10, 64)
			}
		}
		tv.Text = fmt.Sprintf("%s (len %d, cap %d)", shortType(v.Type), tv.Len, tv.Cap)
	case reflect.Func:
		tv.Kind = trace.KindFunc
		switch {
		case v.Value != "":
			tv.Text = v.Value
		case v.Base == 0 && v.Unreadable == "":
			tv.Nil, tv.Text = true, "nil"
		default:
			tv.Text = shortType(v.Type)
		}
	default:
		tv.Kind = trace.KindOther
		tv.Text = v.Value
		if tv.Text == "" {
			tv.Text = "<" + v.Type + ">"
		}
	}
	return tv
}

// convertChildren fills tv's children from v's and sets tv.Text to "{…}".
func convertChildren(tv *trace.Value, v *api.Variable, part func(trace.Value) string) {
	if len(v.Children) == 0 && v.Len > 0 {
		// The recursion limit stopped loading here.
		tv.Cut = true
		tv.Text = "{…}"
		return
	}
	parts := make([]string, 0, len(v.Children)+1)
	for i := range v.Children {
		c := convertValue(&v.Children[i])
		tv.Children = append(tv.Children, c)
		tv.Cut = tv.Cut || c.Cut
		parts = append(parts, part(c))
	}
	if v.Kind != reflect.Struct {
		if more := v.Len - int64(len(v.Children)); more > 0 {
			tv.Cut = true
			parts = append(parts, fmt.Sprintf("…+%d more", more))
		}
	}
	tv.Text = "{" + strings.Join(parts, ", ") + "}"
}

// shortType drops package paths from a type name:
// "map[string]*github.com/x/y.T" becomes "map[string]*y.T".
func shortType(t string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(t); i++ {
		if i == len(t) || strings.ContainsRune("[]*(){}, ", rune(t[i])) {
			word := t[start:i]
			if j := strings.LastIndexByte(word, '/'); j >= 0 {
				word = word[j+1:]
			}
			b.WriteString(word)
			if i < len(t) {
				b.WriteByte(t[i])
			}
			start = i + 1
		}
	}
	return b.String()
}

func apiVar(v *proc.Variable) *api.Variable { return api.ConvertVar(v) }

// panicText renders a panic value the way the runtime prints it where it
// can: runtime errors by their message, strings unquoted in the style of
// `panic: message`, anything else by its recorded text.
func panicText(v trace.Value) string {
	if v.Kind != trace.KindInterface || len(v.Children) == 0 {
		return v.Text
	}
	c := v.Children[0]
	str := func(c trace.Value) (string, bool) {
		s, err := strconv.Unquote(c.Text)
		return s, err == nil
	}
	switch c.Type {
	case "string":
		if s, ok := str(c); ok {
			return s
		}
	case "runtime.plainError":
		if s, ok := str(trace.Value{Text: strings.TrimSuffix(strings.TrimPrefix(c.Text, "runtime.plainError("), ")")}); ok {
			return s
		}
	case "runtime.errorString":
		if s, ok := str(trace.Value{Text: strings.TrimSuffix(strings.TrimPrefix(c.Text, "runtime.errorString("), ")")}); ok {
			return "runtime error: " + s
		}
	case "runtime.boundsError":
		x, _ := c.Child("x")
		y, _ := c.Child("y")
		code, _ := c.Child("code")
		if x != nil && y != nil && code != nil && (code.Text == "0" || strings.HasSuffix(code.Text, "(0)")) {
			return fmt.Sprintf("runtime error: index out of range [%s] with length %s", x.Text, y.Text)
		}
	}
	return v.Text
}

// plumbing are standard library packages whose values say nothing about
// the program's state (a *testing.T, a *sync.WaitGroup) but fill a line.
var plumbing = map[string]bool{
	"testing": true, "sync": true, "sync/atomic": true, "context": true,
	"runtime": true, "reflect": true, "os/exec": true, "net/http": true,
}

// testName returns the name of the test that v, a testing.T, B or F,
// runs, as far as it was read, and its length.
func testName(v *api.Variable) (string, int64, bool) {
	if v.Kind != reflect.Struct || !trace.IsTestType("*"+v.Type) {
		return "", 0, false
	}
	for _, f := range v.Children {
		if f.Name != "common" {
			continue
		}
		for _, g := range f.Children {
			if g.Name == "name" && g.Kind == reflect.String && g.Unreadable == "" {
				return g.Value, g.Len, true
			}
		}
	}
	return "", 0, false
}

// isLibraryType reports whether a named type belongs to a plumbing package.
func isLibraryType(t string) bool {
	i := strings.LastIndexByte(t, '.')
	return i > 0 && plumbing[t[:i]]
}
