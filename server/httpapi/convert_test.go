package httpapi

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// converterCase is one converter of convert_*.go, made generic-free for a
// table: run fills its argument's every field and returns the paths of the
// result's fields left empty.
type converterCase struct {
	name string
	run  func() []string
}

func conv[A, B any](name string, f func(A) B) converterCase {
	return converterCase{name: name, run: func() []string {
		var a A
		fillAll(reflect.ValueOf(&a).Elem(), 0)
		return emptyPaths(reflect.ValueOf(f(a)), "", 0)
	}}
}

// convertGaps are fields a converter leaves empty on purpose, by
// "converter: path" (none today; a new one needs its reason here).
var convertGaps = map[string]string{}

// TestConvertersKeepEveryField: every converter between the domain types
// and the wire types carries every field — filled with a non-zero value on
// the way in, each field of what comes out is set. A field added to one
// side and not copied by its converter (a judgment's new field silently
// dropped at the HTTP edge, or a figure never shown) fails here.
func TestConvertersKeepEveryField(t *testing.T) {
	if len(convertersUnderTest) < 90 {
		t.Fatalf("only %d converters listed", len(convertersUnderTest))
	}
	for _, c := range convertersUnderTest {
		for _, p := range c.run() {
			if _, ok := convertGaps[c.name+": "+p]; ok {
				continue
			}
			t.Errorf("%s leaves %s empty", c.name, p)
		}
	}
}

var timeType = reflect.TypeOf(time.Time{})

// fillAll sets every exported field below v to a non-zero value.
func fillAll(v reflect.Value, depth int) {
	if depth > 8 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(1700000000, 0).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillAll(s.Index(0), depth+1)
		if v.Type().Elem().Kind() == reflect.Uint8 {
			s = reflect.ValueOf([]byte("1")).Convert(v.Type())
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k, depth+1)
		fillAll(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	}
}

// emptyPaths lists the exported fields below v that are zero.
func emptyPaths(v reflect.Value, path string, depth int) []string {
	if depth > 8 {
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == timeType {
			if v.Interface().(time.Time).IsZero() {
				return []string{strings.TrimPrefix(path, ".")}
			}
			return nil
		}
		var out []string
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Type.Kind() != reflect.Interface && f.Type.Kind() != reflect.Func {
				out = append(out, emptyPaths(v.Field(i), path+"."+f.Name, depth+1)...)
			}
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return []string{strings.TrimPrefix(path, ".")}
		}
		return emptyPaths(v.Elem(), path, depth+1)
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{strings.TrimPrefix(path, ".")}
		}
		return emptyPaths(v.Index(0), path+"[0]", depth+1)
	case reflect.Map:
		if v.Len() == 0 {
			return []string{strings.TrimPrefix(path, ".")}
		}
		return nil
	default:
		if v.IsZero() {
			return []string{strings.TrimPrefix(path, ".")}
		}
		return nil
	}
}

// TestConvertCheckCatchesADroppedField: the check above finds a field a
// converter forgets.
func TestConvertCheckCatchesADroppedField(t *testing.T) {
	type in struct{ A, B string }
	type out struct{ A, B string }
	got := conv("forgetful", func(w in) out { return out{A: w.A} }).run()
	if fmt.Sprint(got) != "[B]" {
		t.Fatalf("a converter that drops B: empty fields %v, want [B]", got)
	}
}

// TestConvertersAllListed: every one-argument converter in convert_*.go is
// in convertersUnderTest, so a new one is checked too.
func TestConvertersAllListed(t *testing.T) {
	files, err := filepath.Glob("convert_*.go")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, c := range convertersUnderTest {
		listed[c.name] = true
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "to") || fd.Type.Params.NumFields() != 1 || fd.Type.TypeParams != nil {
				continue
			}
			if !listed[fd.Name.Name] {
				t.Errorf("%s (%s) is not in convertersUnderTest (convert_list_test.go)", fd.Name.Name, name)
			}
		}
	}
}
