package deploy

import (
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// ArgoCDHealth runs argocd/health.lua on obj (any object that marshals to
// JSON, such as an *appsv1.DaemonSet) as Argo CD runs a health check: obj
// as the global obj, the script's returned table read for its status and
// message. It is here for the tests, which judge both hand-made and live
// DaemonSets with it.
func ArgoCDHealth(obj any) (status, message string, err error) {
	script, err := File("argocd/health.lua")
	if err != nil {
		return "", "", err
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return "", "", err
	}
	var m any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", "", err
	}
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("obj", toLua(L, m))
	if err := L.DoString(string(script)); err != nil {
		return "", "", fmt.Errorf("health.lua: %w", err)
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("health.lua returned %v, not a table", L.Get(-1))
	}
	return ret.RawGetString("status").String(), ret.RawGetString("message").String(), nil
}

// toLua converts decoded JSON to Lua values: objects and arrays to tables.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	}
	return lua.LNil
}
