package archtest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The floors of the module (ARCHITECTURE.md, "Floors"). A room is a
// top-level folder (cmd, internal, api, web, wasm, encoders, migrations) or
// a folder server/X, sub-folders joining their parent (server/devtools/*
// is one room, server/store/storetest is in server/store). A room's floor
// is 1 plus the highest floor of the rooms its non-test files import, so a
// room that imports none of the module is on floor 1. A cycle between
// rooms has no floor and fails the test, as do more than maxFloors floors
// and a storage room that imports more than the leaves of storeImports.
const maxFloors = 8

// storeRoom is the storage layer: it sits just above the leaves, below
// everything that uses it (the wire contract's users included).
const storeRoom = "server/store"

// storeImports are the only rooms server/store may import: leaves (floor
// 1), so that the store stays on floor 2.
var storeImports = []string{"migrations", "server/apperr", "server/vocab"}

// room returns the room of a module-relative package path.
func room(rel string) string {
	parts := strings.Split(rel, "/")
	if parts[0] == "server" && len(parts) > 1 {
		return "server/" + parts[1]
	}
	return parts[0]
}

// roomGraph returns, for each room of the module's packages, the other
// rooms its packages import.
func roomGraph(module string, pkgs []pkg) map[string][]string {
	set := map[string]map[string]bool{}
	for _, p := range pkgs {
		from, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		r := room(from)
		if set[r] == nil {
			set[r] = map[string]bool{}
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if ok && room(dep) != r {
				set[r][room(dep)] = true
			}
		}
	}
	g := map[string][]string{}
	for r, deps := range set {
		g[r] = []string{}
		for d := range deps {
			g[r] = append(g[r], d)
		}
		sort.Strings(g[r])
	}
	return g
}

// floorsOf computes every room's floor. A cycle is an error naming it.
func floorsOf(g map[string][]string) (map[string]int, error) {
	floor := map[string]int{}
	onPath := map[string]bool{}
	var path []string
	var visit func(r string) error
	visit = func(r string) error {
		if floor[r] > 0 {
			return nil
		}
		if onPath[r] {
			i := slices.Index(path, r)
			return fmt.Errorf("the rooms import each other in a cycle: %s", strings.Join(append(slices.Clone(path[i:]), r), " → "))
		}
		onPath[r] = true
		path = append(path, r)
		f := 1
		for _, d := range g[r] {
			if err := visit(d); err != nil {
				return err
			}
			f = max(f, floor[d]+1)
		}
		path = path[:len(path)-1]
		onPath[r] = false
		floor[r] = f
		return nil
	}
	rooms := make([]string, 0, len(g))
	for r := range g {
		rooms = append(rooms, r)
	}
	sort.Strings(rooms)
	for _, r := range rooms {
		if err := visit(r); err != nil {
			return nil, err
		}
	}
	return floor, nil
}

// longestChain is a chain of imports from the highest room down to floor
// 1, each step to the first (by name) room one floor lower.
func longestChain(g map[string][]string, floor map[string]int) []string {
	top := ""
	for r, f := range floor {
		if top == "" || f > floor[top] || (f == floor[top] && r < top) {
			top = r
		}
	}
	chain := []string{top}
	for r := top; floor[r] > 1; {
		for _, d := range g[r] {
			if floor[d] == floor[r]-1 {
				r = d
				break
			}
		}
		chain = append(chain, r)
	}
	return chain
}

// checkFloors returns what breaks the floor rules in g.
func checkFloors(g map[string][]string) []string {
	floor, err := floorsOf(g)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	if chain := longestChain(g, floor); len(chain) > maxFloors {
		bad = append(bad, fmt.Sprintf("%d floors, more than %d: %s", len(chain), maxFloors, strings.Join(chain, " → ")))
	}
	for _, d := range g[storeRoom] {
		if !slices.Contains(storeImports, d) {
			bad = append(bad, fmt.Sprintf("%s imports %s: the store may import only the leaves %s (storeImports, internal/archtest/floors_test.go)",
				storeRoom, d, strings.Join(storeImports, ", ")))
		}
	}
	for _, d := range storeImports {
		if f, ok := floor[d]; ok && f != 1 {
			bad = append(bad, fmt.Sprintf("%s, which %s may import, is on floor %d, not a leaf (imports %s)", d, storeRoom, f, strings.Join(g[d], ", ")))
		}
	}
	return bad
}

// TestFloors: the module's rooms stand on at most maxFloors floors, with
// no cycle, and the store imports only leaves. The log shows every room's
// floor and the longest chain.
func TestFloors(t *testing.T) {
	module, pkgs := listModule(t)
	g := roomGraph(module, pkgs)
	for _, r := range []string{storeRoom, "cmd", "api", "server/app"} {
		if _, ok := g[r]; !ok {
			t.Fatalf("no room %s: the floor rules name rooms that moved", r)
		}
	}
	for _, v := range checkFloors(g) {
		t.Error(v)
	}
	if floor, err := floorsOf(g); err == nil {
		chain := longestChain(g, floor)
		t.Logf("%d floors: %s", len(chain), strings.Join(chain, " → "))
	}
}

// TestCheckFloorsCatchesViolations: a cycle, a chain of maxFloors+1 rooms
// and a store that imports a room that is no listed leaf each fail; a
// graph of maxFloors floors passes.
func TestCheckFloorsCatchesViolations(t *testing.T) {
	// ladder is a chain of n rooms r1 → r2 → … → rn plus the store on its leaves.
	ladder := func(n int) map[string][]string {
		g := map[string][]string{storeRoom: {"migrations", "server/apperr"}, "migrations": {}, "server/apperr": {}}
		for i := 1; i <= n; i++ {
			g[fmt.Sprintf("r%d", i)] = []string{}
			if i > 1 {
				g[fmt.Sprintf("r%d", i-1)] = []string{fmt.Sprintf("r%d", i)}
			}
		}
		g[fmt.Sprintf("r%d", n)] = []string{storeRoom}
		return g
	}
	if got := checkFloors(ladder(maxFloors - 2)); len(got) > 0 {
		t.Errorf("violations in a graph of %d floors: %q", maxFloors, got)
	}
	tests := []struct {
		name string
		g    map[string][]string
		want string
	}{
		{"too many floors", ladder(maxFloors - 1), fmt.Sprintf("%d floors, more than %d: r1 → ", maxFloors+1, maxFloors)},
		{"a cycle", map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}, "cycle: a → b → c → a"},
		{"the store above a non-leaf", map[string][]string{storeRoom: {"server/estimate"}, "server/estimate": {}},
			"server/store imports server/estimate"},
		{"a listed leaf that is none", map[string][]string{storeRoom: {"server/apperr"}, "server/apperr": {"server/metrics"}, "server/metrics": {}},
			"server/apperr, which server/store may import, is on floor 2"},
	}
	for _, tt := range tests {
		got := checkFloors(tt.g)
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, tt.want) }) {
			t.Errorf("%s: got %q, want one containing %q", tt.name, got, tt.want)
		}
	}
	// Rooms: server/X folders with their sub-folders, other top-level folders whole.
	for rel, want := range map[string]string{"server/store/storetest": "server/store", "server/devtools/bench": "server/devtools",
		"cmd/boolpool-lab": "cmd", "internal/archtest": "internal", "api": "api", "server": "server"} {
		if got := room(rel); got != want {
			t.Errorf("room(%q) = %q, want %q", rel, got, want)
		}
	}
}
