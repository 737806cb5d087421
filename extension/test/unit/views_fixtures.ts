// Answers of adi dap recorded from real runs of testdata fixtures
// (adi repl --json: frame, call-tree, outcome), for the views' unit tests.

export const offbyoneTestFLT = {
 "fid": "github.com/adi-go/adi/testdata/offbyone.TestSumFirst#1",
 "func": "github.com/adi-go/adi/testdata/offbyone.TestSumFirst",
 "index": 1,
 "caller": null,
 "spawn": false,
 "goroutine": 21,
 "call_site": {
  "file": "",
  "line": 0
 },
 "args": [
  {
   "name": "t",
   "type": "*testing.T",
   "value": "&testing.T{…}",
   "kind": "pointer",
   "cut": true
  }
 ],
 "results": [],
 "exit": "returned",
 "panic": null,
 "decl": {
  "file": "/work/main/testdata/offbyone/offbyone_test.go",
  "line": 12
 },
 "steps": [
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 13,
   "stmt": "xs := Readings(30)",
   "changes": [
    {
     "var": "xs",
     "old": null,
     "new": "[]int{1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, …+14 more}",
     "type": "[]int"
    }
   ],
   "callees": [
    "github.com/adi-go/adi/testdata/offbyone.Readings#1"
   ]
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 14,
   "stmt": "got := SumFirst(xs, 25)",
   "changes": [
    {
     "var": "got",
     "old": null,
     "new": "852",
     "type": "int"
    }
   ],
   "callees": [
    "github.com/adi-go/adi/testdata/offbyone.SumFirst#1"
   ]
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 15,
   "stmt": "want := 925",
   "changes": [
    {
     "var": "want",
     "old": null,
     "new": "925",
     "type": "int"
    }
   ],
   "callees": []
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 16,
   "stmt": "if got != want {",
   "changes": [],
   "callees": []
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 17,
   "stmt": "t.Errorf(\"SumFirst(xs, 25) = %d, want %d\", got, want)",
   "changes": [],
   "callees": []
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone_test.go",
   "line": 19,
   "stmt": "}",
   "changes": [],
   "callees": []
  }
 ],
 "skipped": [],
 "truncated": false
};

export const offbyoneSumFirstFLT = {
 "fid": "github.com/adi-go/adi/testdata/offbyone.SumFirst#1",
 "func": "github.com/adi-go/adi/testdata/offbyone.SumFirst",
 "index": 1,
 "caller": "github.com/adi-go/adi/testdata/offbyone.TestSumFirst#1",
 "spawn": false,
 "goroutine": 21,
 "call_site": {
  "file": "/work/main/testdata/offbyone/offbyone_test.go",
  "line": 14
 },
 "args": [
  {
   "name": "xs",
   "type": "[]int",
   "value": "[]int{1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, …+14 more}",
   "kind": "slice",
   "len": 30,
   "cap": 30,
   "cut": true
  },
  {
   "name": "n",
   "type": "int",
   "value": "25",
   "kind": "int"
  }
 ],
 "results": [
  {
   "name": "~r0",
   "type": "int",
   "value": "852",
   "kind": "int"
  }
 ],
 "exit": "returned",
 "panic": null,
 "decl": {
  "file": "/work/main/testdata/offbyone/offbyone.go",
  "line": 19
 },
 "steps": [
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 20,
   "stmt": "total := 0",
   "changes": [
    {
     "var": "total",
     "old": null,
     "new": "0",
     "type": "int"
    }
   ],
   "callees": []
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 21,
   "stmt": "for i := 0; i < n-1; i++ {",
   "changes": [
    {
     "var": "i",
     "old": null,
     "new": "0",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 1
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 22,
   "stmt": "total += xs[i]",
   "changes": [
    {
     "var": "total",
     "old": "0",
     "new": "1",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 1
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 21,
   "stmt": "for i := 0; i < n-1; i++ {",
   "changes": [
    {
     "var": "i",
     "old": null,
     "new": "23",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 24
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 22,
   "stmt": "total += xs[i]",
   "changes": [
    {
     "var": "total",
     "old": "782",
     "new": "852",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 24
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 21,
   "stmt": "for i := 0; i < n-1; i++ {",
   "changes": [],
   "callees": [],
   "iteration": 24
  },
  {
   "file": "/work/main/testdata/offbyone/offbyone.go",
   "line": 24,
   "stmt": "return total",
   "changes": [],
   "callees": []
  }
 ],
 "skipped": [
  {
   "after": 2,
   "line": 21,
   "iterations": 22,
   "steps": 44,
   "callees": []
  }
 ],
 "truncated": false
};

export const offbyoneTestTree1 = {
 "root": {
  "fid": "github.com/adi-go/adi/testdata/offbyone.TestSumFirst#1",
  "args": [
   {
    "name": "t",
    "type": "*testing.T",
    "value": "&testing.T{…}",
    "kind": "pointer",
    "cut": true
   }
  ],
  "results": [],
  "panic": null,
  "exit": "returned",
  "children": [
   {
    "fid": "github.com/adi-go/adi/testdata/offbyone.Readings#1",
    "args": [
     {
      "name": "n",
      "type": "int",
      "value": "30",
      "kind": "int"
     }
    ],
    "results": [
     {
      "name": "~r0",
      "type": "[]int",
      "value": "[]int{1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, …+14 more}",
      "kind": "slice",
      "len": 30,
      "cap": 30,
      "cut": true
     }
    ],
    "panic": null,
    "exit": "returned",
    "children": [],
    "goroutine": 21,
    "more": 30
   },
   {
    "fid": "github.com/adi-go/adi/testdata/offbyone.SumFirst#1",
    "args": [
     {
      "name": "xs",
      "type": "[]int",
      "value": "[]int{1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, …+14 more}",
      "kind": "slice",
      "len": 30,
      "cap": 30,
      "cut": true
     },
     {
      "name": "n",
      "type": "int",
      "value": "25",
      "kind": "int"
     }
    ],
    "results": [
     {
      "name": "~r0",
      "type": "int",
      "value": "852",
      "kind": "int"
     }
    ],
    "panic": null,
    "exit": "returned",
    "children": [],
    "goroutine": 21
   }
  ],
  "goroutine": 21
 }
};

export const nilptrOutcome = {
 "exit_code": 2,
 "panic": {
  "value": "runtime error: invalid memory address or nil pointer dereference",
  "goroutine": 4,
  "frame": "github.com/adi-go/adi/testdata/nilptr.Greeting#3",
  "stack": [
   {
    "func": "runtime.fatalpanic",
    "file": "/usr/local/go/src/runtime/panic.go",
    "line": 1456,
    "fid": null
   },
   {
    "func": "runtime.gopanic",
    "file": "/usr/local/go/src/runtime/panic.go",
    "line": 879,
    "fid": null
   },
   {
    "func": "testing.tRunner.func1.2",
    "file": "/usr/local/go/src/testing/testing.go",
    "line": 1974,
    "fid": null
   },
   {
    "func": "testing.tRunner.func1",
    "file": "/usr/local/go/src/testing/testing.go",
    "line": 1977,
    "fid": null
   },
   {
    "func": "runtime.gopanic",
    "file": "/usr/local/go/src/runtime/panic.go",
    "line": 860,
    "fid": null
   },
   {
    "func": "runtime.panicmem",
    "file": "/usr/local/go/src/runtime/panic.go",
    "line": 336,
    "fid": null
   },
   {
    "func": "runtime.sigpanic",
    "file": "/usr/local/go/src/runtime/signal_unix.go",
    "line": 931,
    "fid": null
   },
   {
    "func": "github.com/adi-go/adi/testdata/nilptr.Greeting",
    "file": "/work/main/testdata/nilptr/nilptr.go",
    "line": 40,
    "fid": "github.com/adi-go/adi/testdata/nilptr.Greeting#3"
   },
   {
    "func": "github.com/adi-go/adi/testdata/nilptr.Greetings",
    "file": "/work/main/testdata/nilptr/nilptr.go",
    "line": 47,
    "fid": "github.com/adi-go/adi/testdata/nilptr.Greetings#1"
   },
   {
    "func": "github.com/adi-go/adi/testdata/nilptr.TestGreetings",
    "file": "/work/main/testdata/nilptr/nilptr_test.go",
    "line": 10,
    "fid": "github.com/adi-go/adi/testdata/nilptr.TestGreetings#1"
   },
   {
    "func": "testing.tRunner",
    "file": "/usr/local/go/src/testing/testing.go",
    "line": 2036,
    "fid": null
   },
   {
    "func": "testing.(*T).Run.gowrap1",
    "file": "/usr/local/go/src/testing/testing.go",
    "line": 2101,
    "fid": null
   },
   {
    "func": "runtime.goexit",
    "file": "/usr/local/go/src/runtime/asm_amd64.s",
    "line": 1771,
    "fid": null
   }
  ]
 },
 "failed_tests": [
  "TestGreetings"
 ],
 "output": "--- FAIL: TestGreetings (0.05s)\npanic: runtime error: invali",
 "killed": false
};

export const nilptrTree = {
 "root": {
  "fid": "github.com/adi-go/adi/testdata/nilptr.TestGreetings#1",
  "args": [
   {
    "name": "t",
    "type": "*testing.T",
    "value": "&testing.T{…}",
    "kind": "pointer",
    "cut": true
   }
  ],
  "results": [],
  "panic": "runtime error: invalid memory address or nil pointer dereference",
  "exit": "panicked",
  "children": [
   {
    "fid": "github.com/adi-go/adi/testdata/nilptr.NewDirectory#1",
    "args": [],
    "results": [
     {
      "name": "~r0",
      "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
      "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
      "kind": "pointer"
     }
    ],
    "panic": null,
    "exit": "returned",
    "children": [],
    "goroutine": 19
   },
   {
    "fid": "github.com/adi-go/adi/testdata/nilptr.Greetings#1",
    "args": [
     {
      "name": "d",
      "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
      "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
      "kind": "pointer"
     },
     {
      "name": "ids",
      "type": "[]int",
      "value": "[]int{1, 3, 4}",
      "kind": "slice",
      "len": 3,
      "cap": 3
     }
    ],
    "results": [],
    "panic": "runtime error: invalid memory address or nil pointer dereference",
    "exit": "panicked",
    "children": [
     {
      "fid": "github.com/adi-go/adi/testdata/nilptr.Greeting#1",
      "args": [
       {
        "name": "d",
        "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
        "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
        "kind": "pointer"
       },
       {
        "name": "id",
        "type": "int",
        "value": "1",
        "kind": "int"
       }
      ],
      "results": [
       {
        "name": "~r0",
        "type": "string",
        "value": "\"hello, ada\"",
        "kind": "string",
        "len": 10
       }
      ],
      "panic": null,
      "exit": "returned",
      "children": [
       {
        "fid": "github.com/adi-go/adi/testdata/nilptr.(*Directory).Find#1",
        "args": [
         {
          "name": "d",
          "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
          "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
          "kind": "pointer"
         },
         {
          "name": "id",
          "type": "int",
          "value": "1",
          "kind": "int"
         }
        ],
        "results": [
         {
          "name": "~r0",
          "type": "*github.com/adi-go/adi/testdata/nilptr.User",
          "value": "&nilptr.User{ID: 1, Name: \"ada\"}",
          "kind": "pointer"
         }
        ],
        "panic": null,
        "exit": "returned",
        "children": [],
        "goroutine": 19
       }
      ],
      "goroutine": 19
     },
     {
      "fid": "github.com/adi-go/adi/testdata/nilptr.Greeting#2",
      "args": [
       {
        "name": "d",
        "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
        "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
        "kind": "pointer"
       },
       {
        "name": "id",
        "type": "int",
        "value": "3",
        "kind": "int"
       }
      ],
      "results": [
       {
        "name": "~r0",
        "type": "string",
        "value": "\"hello, cy\"",
        "kind": "string",
        "len": 9
       }
      ],
      "panic": null,
      "exit": "returned",
      "children": [
       {
        "fid": "github.com/adi-go/adi/testdata/nilptr.(*Directory).Find#2",
        "args": [
         {
          "name": "d",
          "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
          "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
          "kind": "pointer"
         },
         {
          "name": "id",
          "type": "int",
          "value": "3",
          "kind": "int"
         }
        ],
        "results": [
         {
          "name": "~r0",
          "type": "*github.com/adi-go/adi/testdata/nilptr.User",
          "value": "&nilptr.User{ID: 3, Name: \"cy\"}",
          "kind": "pointer"
         }
        ],
        "panic": null,
        "exit": "returned",
        "children": [],
        "goroutine": 19
       }
      ],
      "goroutine": 19
     },
     {
      "fid": "github.com/adi-go/adi/testdata/nilptr.Greeting#3",
      "args": [
       {
        "name": "d",
        "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
        "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
        "kind": "pointer"
       },
       {
        "name": "id",
        "type": "int",
        "value": "4",
        "kind": "int"
       }
      ],
      "results": [],
      "panic": "runtime error: invalid memory address or nil pointer dereference",
      "exit": "panicked",
      "children": [
       {
        "fid": "github.com/adi-go/adi/testdata/nilptr.(*Directory).Find#3",
        "args": [
         {
          "name": "d",
          "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
          "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
          "kind": "pointer"
         },
         {
          "name": "id",
          "type": "int",
          "value": "4",
          "kind": "int"
         }
        ],
        "results": [
         {
          "name": "~r0",
          "type": "*github.com/adi-go/adi/testdata/nilptr.User",
          "value": "nil",
          "kind": "pointer",
          "nil": true
         }
        ],
        "panic": null,
        "exit": "returned",
        "children": [],
        "goroutine": 19
       }
      ],
      "goroutine": 19
     }
    ],
    "goroutine": 19
   }
  ],
  "goroutine": 19
 }
};

export const nilptrGreetingsFLT = {
 "fid": "github.com/adi-go/adi/testdata/nilptr.Greetings#1",
 "func": "github.com/adi-go/adi/testdata/nilptr.Greetings",
 "index": 1,
 "caller": "github.com/adi-go/adi/testdata/nilptr.TestGreetings#1",
 "spawn": false,
 "goroutine": 19,
 "call_site": {
  "file": "/work/main/testdata/nilptr/nilptr_test.go",
  "line": 10
 },
 "args": [
  {
   "name": "d",
   "type": "*github.com/adi-go/adi/testdata/nilptr.Directory",
   "value": "&nilptr.Directory{users: []*nilptr.User{&nilptr.User{ID: 1, Name: \"ada\"}, &nilptr.User{ID: 2, Name: \"bob\"}, &nilptr.User{ID: 3, Name: \"cy\"}}}",
   "kind": "pointer"
  },
  {
   "name": "ids",
   "type": "[]int",
   "value": "[]int{1, 3, 4}",
   "kind": "slice",
   "len": 3,
   "cap": 3
  }
 ],
 "results": [],
 "exit": "panicked",
 "panic": "runtime error: invalid memory address or nil pointer dereference",
 "decl": {
  "file": "/work/main/testdata/nilptr/nilptr.go",
  "line": 44
 },
 "steps": [
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 45,
   "stmt": "var out []string",
   "changes": [
    {
     "var": "out",
     "old": null,
     "new": "nil",
     "type": "[]string"
    }
   ],
   "callees": []
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 46,
   "stmt": "for _, id := range ids {",
   "changes": [
    {
     "var": "id",
     "old": null,
     "new": "1",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 1
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 47,
   "stmt": "out = append(out, Greeting(d, id))",
   "changes": [
    {
     "var": "out",
     "old": "nil",
     "new": "[]string{\"hello, ada\"}",
     "type": "[]string"
    }
   ],
   "callees": [
    "github.com/adi-go/adi/testdata/nilptr.Greeting#1"
   ],
   "iteration": 1
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 46,
   "stmt": "for _, id := range ids {",
   "changes": [
    {
     "var": "id",
     "old": null,
     "new": "3",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 2
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 47,
   "stmt": "out = append(out, Greeting(d, id))",
   "changes": [
    {
     "var": "out",
     "old": "[]string{\"hello, ada\"}",
     "new": "[]string{\"hello, ada\", \"hello, cy\"}",
     "type": "[]string"
    }
   ],
   "callees": [
    "github.com/adi-go/adi/testdata/nilptr.Greeting#2"
   ],
   "iteration": 2
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 46,
   "stmt": "for _, id := range ids {",
   "changes": [
    {
     "var": "id",
     "old": null,
     "new": "4",
     "type": "int"
    }
   ],
   "callees": [],
   "iteration": 3
  },
  {
   "file": "/work/main/testdata/nilptr/nilptr.go",
   "line": 47,
   "stmt": "out = append(out, Greeting(d, id))",
   "changes": [],
   "callees": [
    "github.com/adi-go/adi/testdata/nilptr.Greeting#3"
   ],
   "iteration": 3
  }
 ],
 "skipped": [],
 "truncated": false
};
