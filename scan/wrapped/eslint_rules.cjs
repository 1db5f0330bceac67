"use strict";
// scand's own ESLint rules for the injection classes no pinned plugin
// finds well (see docs/javascript-and-sbom.md for the measurements): SQL
// and NoSQL injection, SSRF, open redirect, path traversal in file-serving
// calls, XXE through libxmljs entity expansion, node:vm with user input, log
// injection. Written into the scan's private folder and loaded by the flat
// configuration scand generates; it requires nothing.
//
// "User-controlled" is a light, per-file taint: request members
// (req.query, req.body, req.params, req.headers, req.cookies, ... and the
// same on koa's ctx), the handler parameters destructured from them
// (`({ params, query }, res) => ...`), and whatever is computed from them:
// variables initialised or assigned from a tainted expression, calls with a
// tainted argument or receiver, and the parameters of a function in the
// same file called with a tainted argument. A few conversions clear taint
// (parseInt, Number, encodeURIComponent, path.basename, SQL escape). It
// stops at the file boundary: a value read from the request in one module
// and used in another is not followed.

const SOURCE_ROOTS = new Set(["req", "request", "ctx", "context"]);
const SOURCE_PROPS = new Set(["query", "body", "params", "headers", "cookies", "signedCookies", "files", "file", "url", "originalUrl", "path", "hostname"]);
const DESTRUCTURED_SOURCES = new Set(["query", "body", "params", "headers", "cookies", "file", "files"]);
const SANITIZERS = new Set(["parseInt", "parseFloat", "Number", "Boolean", "isNaN", "isFinite", "encodeURIComponent", "basename", "escape", "escapeId", "escapeLiteral", "escapeIdentifier", "format" /* sqlstring.format binds values */]);
const MAX_DEPTH = 24;

const analyses = new WeakMap();

function propName(node) {
  if (!node) return undefined;
  if (node.type === "Identifier") return node.name;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "PrivateIdentifier") return node.name;
  return undefined;
}

function memberProp(node) {
  return node && node.type === "MemberExpression" ? (node.computed && node.property.type !== "Literal" ? undefined : propName(node.property)) : undefined;
}

function unwrap(node) {
  while (node && ["TSAsExpression", "TSNonNullExpression", "TSTypeAssertion", "TSSatisfiesExpression", "ChainExpression", "ParenthesizedExpression", "AwaitExpression"].includes(node.type)) {
    node = node.expression;
  }
  return node;
}

function calleeName(call) {
  const c = unwrap(call.callee);
  if (!c) return undefined;
  if (c.type === "Identifier") return c.name;
  return memberProp(c);
}

function calleeObjectName(call) {
  const c = unwrap(call.callee);
  if (c && c.type === "MemberExpression") {
    const o = unwrap(c.object);
    if (o && o.type === "Identifier") return o.name;
    if (o && o.type === "ThisExpression") return "this";
  }
  return undefined;
}

// isSourceMember: req.query.x, req.body, ctx.request.body, ...
function isSourceMember(node) {
  let n = node;
  let sawSource = false;
  while (n && n.type === "MemberExpression") {
    const p = memberProp(n);
    if (p && SOURCE_PROPS.has(p)) sawSource = true;
    n = unwrap(n.object);
  }
  return sawSource && n && n.type === "Identifier" && SOURCE_ROOTS.has(n.name);
}

function analyze(context) {
  const sourceCode = context.sourceCode || context.getSourceCode();
  const ast = sourceCode.ast;
  const cached = analyses.get(ast);
  if (cached) return cached;

  const scopeManager = sourceCode.scopeManager;
  const refs = new Map(); // Identifier node -> Variable
  for (const scope of scopeManager.scopes) {
    for (const ref of scope.references) {
      if (ref.resolved) refs.set(ref.identifier, ref.resolved);
    }
  }

  const nodes = { calls: [], news: [], declarators: [], assignments: [], functions: [], properties: [] };
  const keys = sourceCode.visitorKeys;
  const stack = [ast];
  while (stack.length) {
    const node = stack.pop();
    switch (node.type) {
      case "CallExpression": nodes.calls.push(node); break;
      case "NewExpression": nodes.news.push(node); break;
      case "VariableDeclarator": nodes.declarators.push(node); break;
      case "AssignmentExpression": nodes.assignments.push(node); break;
      case "FunctionDeclaration": case "FunctionExpression": case "ArrowFunctionExpression": nodes.functions.push(node); break;
      case "Property": nodes.properties.push(node); break;
    }
    for (const k of keys[node.type] || []) {
      const child = node[k];
      if (Array.isArray(child)) {
        for (let i = child.length - 1; i >= 0; i--) if (child[i] && typeof child[i].type === "string") stack.push(child[i]);
      } else if (child && typeof child.type === "string") {
        stack.push(child);
      }
    }
  }
  // Source order, so reports come out in line order.
  for (const list of Object.values(nodes)) list.sort((a, b) => a.range[0] - b.range[0]);

  // Seeds: variables user-controlled from the start.
  const seeds = [];

  function paramVariable(fn, param) {
    for (const v of sourceCode.scopeManager.getDeclaredVariables(fn)) {
      if (v.defs.some((d) => d.type === "Parameter" && d.name === param)) return v;
    }
    return undefined;
  }

  // Handler parameters destructured from the request: ({ params, query }, res, next).
  for (const fn of nodes.functions) {
    if (fn.params.length < 2) continue;
    const first = fn.params[0].type === "AssignmentPattern" ? fn.params[0].left : fn.params[0];
    if (first.type !== "ObjectPattern") continue;
    for (const prop of first.properties) {
      if (prop.type !== "Property" || !DESTRUCTURED_SOURCES.has(propName(prop.key))) continue;
      const target = prop.value.type === "AssignmentPattern" ? prop.value.left : prop.value;
      if (target.type === "Identifier") {
        const v = paramVariable(fn, target);
        if (v) seeds.push(v);
      }
    }
  }

  // Entries of an archive being unpacked (unzipper, yauzl, tar-stream:
  // .on("entry", (entry) => ...)) name their own paths: zip slip.
  for (const call of nodes.calls) {
    const fn = unwrap(call.arguments[1]);
    if (calleeName(call) === "on" && call.arguments[0] && call.arguments[0].value === "entry" && fn &&
        (fn.type === "FunctionExpression" || fn.type === "ArrowFunctionExpression") && fn.params[0] && fn.params[0].type === "Identifier") {
      const v = paramVariable(fn, fn.params[0]);
      if (v) seeds.push(v);
    }
  }

  // Paths checked against a root (p.startsWith(root), p.indexOf(root) === 0,
  // p.slice(0, root.length) !== root): what is derived from them is
  // contained, for the path-traversal sinks.
  const contained = new Set();
  for (const call of nodes.calls) {
    const c = unwrap(call.callee);
    if (!c || c.type !== "MemberExpression") continue;
    const recv = unwrap(c.object);
    const v = recv && recv.type === "Identifier" ? refs.get(recv) : undefined;
    if (!v) continue;
    const name = memberProp(c);
    const parent = call.parent && call.parent.type === "ChainExpression" ? call.parent.parent : call.parent;
    const compared = parent && parent.type === "BinaryExpression" && ["===", "!==", "==", "!="].includes(parent.operator);
    const zeroFirst = call.arguments[0] && call.arguments[0].type === "Literal" && call.arguments[0].value === 0;
    if (name === "startsWith" || (name === "indexOf" && compared) || (["slice", "substr", "substring"].includes(name) && zeroFirst && compared)) {
      contained.add(v);
    }
  }

  function functionOf(variable) {
    for (const def of variable.defs) {
      if (def.type === "FunctionName") return def.node;
      if (def.type === "Variable" && def.node.init) {
        const init = unwrap(def.node.init);
        if (init && (init.type === "FunctionExpression" || init.type === "ArrowFunctionExpression")) return init;
      }
    }
    return undefined;
  }

  // taint computes, to a fixed point, the variables derived from the seeds
  // (never through a variable in stop) and returns the test of an
  // expression.
  function taint(stop) {
    const tainted = new Set(seeds.filter((v) => !stop.has(v)));

    function isTainted(node, depth) {
      node = unwrap(node);
      if (!node || (depth || 0) > MAX_DEPTH) return false;
      const d = (depth || 0) + 1;
      switch (node.type) {
        case "Identifier": {
          const v = refs.get(node);
          return v !== undefined && !stop.has(v) && tainted.has(v);
        }
        case "MemberExpression":
          return isSourceMember(node) || isTainted(node.object, d);
        case "TemplateLiteral":
          return node.expressions.some((e) => isTainted(e, d));
        case "TaggedTemplateExpression":
          return false; // sql`...` tags bind their values
        case "BinaryExpression": case "LogicalExpression":
          return isTainted(node.left, d) || isTainted(node.right, d);
        case "ConditionalExpression":
          return isTainted(node.consequent, d) || isTainted(node.alternate, d);
        case "CallExpression": case "NewExpression": {
          if (SANITIZERS.has(calleeName(node))) return false;
          if (node.arguments.some((a) => isTainted(a, d))) return true;
          const c = unwrap(node.callee);
          return c && c.type === "MemberExpression" && isTainted(c.object, d);
        }
        case "ObjectExpression":
          return node.properties.some((p) => (p.type === "SpreadElement" ? isTainted(p.argument, d) : isTainted(p.value, d)));
        case "ArrayExpression":
          return node.elements.some((e) => e && isTainted(e.type === "SpreadElement" ? e.argument : e, d));
        case "SpreadElement":
          return isTainted(node.argument, d);
        case "AssignmentExpression":
          return isTainted(node.right, d);
        case "SequenceExpression":
          return isTainted(node.expressions[node.expressions.length - 1], d);
        default:
          return false;
      }
    }

    function add(v) {
      if (v && !stop.has(v) && !tainted.has(v)) {
        tainted.add(v);
        return true;
      }
      return false;
    }

    // Bounded: each round adds a variable or stops.
    for (let round = 0; round < 16; round++) {
      let changed = false;
      for (const decl of nodes.declarators) {
        if (decl.init && isTainted(decl.init)) {
          for (const v of scopeManager.getDeclaredVariables(decl)) changed = add(v) || changed;
        }
      }
      for (const asg of nodes.assignments) {
        const left = unwrap(asg.left);
        if (left && left.type === "Identifier" && isTainted(asg.right)) changed = add(refs.get(left)) || changed;
      }
      for (const call of nodes.calls) {
        const c = unwrap(call.callee);
        if (!c || c.type !== "Identifier") continue;
        const v = refs.get(c);
        const fn = v && functionOf(v);
        if (!fn) continue;
        call.arguments.forEach((arg, i) => {
          const p = fn.params[i];
          if (p && p.type === "Identifier" && isTainted(arg)) changed = add(paramVariable(fn, p)) || changed;
        });
      }
      if (!changed) break;
    }
    return isTainted;
  }

  const isTainted = taint(new Set());
  const isPathTainted = contained.size ? taint(contained) : isTainted;

  // constInit: the initializer of a const/let/var the identifier refers to,
  // for sinks that look at how a string was built (`const q = "..." + x; db.query(q)`).
  function constInit(node) {
    node = unwrap(node);
    if (node && node.type === "Identifier") {
      const v = refs.get(node);
      if (v && v.defs.length === 1 && v.defs[0].type === "Variable" && v.defs[0].node.init) return unwrap(v.defs[0].node.init);
    }
    return node;
  }

  const result = { nodes, isTainted, isPathTainted, constInit, refs };
  analyses.set(ast, result);
  return result;
}

// staticText: the literal parts of a string-building expression, and
// whether any part is not a literal.
function staticText(node, depth) {
  node = unwrap(node);
  if (!node || (depth || 0) > MAX_DEPTH) return { text: "", dynamic: true };
  const d = (depth || 0) + 1;
  if (node.type === "Literal") return { text: typeof node.value === "string" ? node.value : String(node.value), dynamic: false };
  if (node.type === "TemplateLiteral") {
    return { text: node.quasis.map((q) => q.value.cooked || "").join(" ? "), dynamic: node.expressions.length > 0 };
  }
  if (node.type === "BinaryExpression" && node.operator === "+") {
    const l = staticText(node.left, d);
    const r = staticText(node.right, d);
    return { text: l.text + " ? " + r.text, dynamic: l.dynamic || r.dynamic };
  }
  return { text: "", dynamic: true };
}

const SQL_TEXT = /^\s*(?:\(\s*)?(?:SELECT\b[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\b[\s\S]*\bSET\b|DELETE\s+FROM\b|REPLACE\s+INTO\b|MERGE\s+INTO\b|WITH\b[\s\S]*\bSELECT\b)/i;
const SQL_METHODS = new Set(["query", "raw", "execute", "exec", "run", "all", "get", "each", "prepare", "unsafe", "queryRaw", "executeRaw", "$queryRawUnsafe", "$executeRawUnsafe", "queryRawUnsafe", "executeRawUnsafe", "whereRaw", "havingRaw", "orderByRaw", "joinRaw", "fromRaw", "literal"]);

// FIXED_ORIGIN: a URL prefix that already fixes where it leads: a path on
// this host ("/items/", not "//") or an absolute URL with its host.
const FIXED_ORIGIN = /^(?:\/[^/\\]|[a-z][a-z0-9+.-]*:\/\/[^/?#\\]+[/?#])/i;

// leadsTainted: whether a URL's origin, its leading part, comes from the
// request. "/items/" + id and `${base}/${id}` lead somewhere fixed; url,
// "/" + next and `${next}` do not.
function leadsTainted(node, isTainted) {
  const parts = [];
  const flatten = (n, depth) => {
    n = unwrap(n);
    if (depth > MAX_DEPTH) return parts.push(n);
    if (n && n.type === "BinaryExpression" && n.operator === "+") {
      flatten(n.left, depth + 1);
      flatten(n.right, depth + 1);
    } else if (n && n.type === "TemplateLiteral") {
      n.quasis.forEach((q, i) => {
        parts.push({ type: "Literal", value: q.value.cooked || "" });
        if (i < n.expressions.length) flatten(n.expressions[i], depth + 1);
      });
    } else {
      parts.push(n);
    }
  };
  flatten(node, 0);
  let prefix = "";
  for (const p of parts) {
    if (p && p.type === "Literal" && typeof p.value === "string") {
      prefix += p.value;
      if (FIXED_ORIGIN.test(prefix)) return false;
      continue;
    }
    return isTainted(p);
  }
  return false;
}

function report(context, node, message) {
  context.report({ node, message });
}

function rule(description, check) {
  return {
    meta: { type: "problem", docs: { description }, schema: [] },
    create(context) {
      return { "Program:exit"() { check(context, analyze(context)); } };
    },
  };
}

const sqlInjection = rule("SQL built from request input by concatenation or a template literal", (context, a) => {
  for (const call of a.nodes.calls) {
    const name = calleeName(call);
    if (!SQL_METHODS.has(name) || call.arguments.length === 0) continue;
    const arg = a.constInit(call.arguments[0]);
    const { text, dynamic } = staticText(arg);
    if (!dynamic || !SQL_TEXT.test(text)) continue;
    if (a.isTainted(call.arguments[0]) || a.isTainted(arg)) {
      report(context, call, "SQL query built from request input by string concatenation or a template literal; pass the values as bound parameters");
    }
  }
});

const MONGO_METHODS = new Set(["find", "findOne", "findOneAndUpdate", "findOneAndDelete", "findOneAndReplace", "findOneAndRemove", "update", "updateOne", "updateMany", "deleteOne", "deleteMany", "remove", "count", "countDocuments", "distinct", "replaceOne"]);
const SEQUELIZE_OPTION_KEYS = new Set(["where", "attributes", "include", "order", "limit", "offset", "replacements", "transaction", "raw"]);

const nosqlInjection = rule("MongoDB $where built from strings, or a query filter taking a request value as is", (context, a) => {
  for (const prop of a.nodes.properties) {
    if (propName(prop.key) !== "$where" || !prop.parent || prop.parent.type !== "ObjectExpression") continue;
    const v = a.constInit(prop.value);
    if (!v || v.type === "FunctionExpression" || v.type === "ArrowFunctionExpression") continue;
    const { dynamic } = staticText(v);
    if (dynamic) report(context, prop, "MongoDB $where evaluates JavaScript built from a string with variable parts (NoSQL injection); query with operators instead");
  }
  for (const call of a.nodes.calls) {
    if (!MONGO_METHODS.has(calleeName(call)) || call.arguments.length === 0) continue;
    const filter = unwrap(call.arguments[0]);
    if (!filter || filter.type !== "ObjectExpression") continue;
    if (filter.properties.some((p) => p.type === "Property" && SEQUELIZE_OPTION_KEYS.has(propName(p.key)))) continue;
    for (const p of filter.properties) {
      if (p.type !== "Property" || propName(p.key) === "$where") continue;
      const v = unwrap(p.value);
      // req.body.x can be {"$ne": null}: the filter then matches anything.
      if (v && v.type === "MemberExpression" && isSourceMember(v)) {
        report(context, p, "query filter takes a request value as is; an object such as {\"$ne\": null} there becomes an operator (NoSQL operator injection): convert it to a string or number first");
      }
    }
  }
});

const HTTP_CLIENTS = new Set(["fetch", "request", "got", "axios", "needle", "superagent", "ky", "undici", "http", "https", "nodeFetch", "phin", "bent", "wreck", "Wreck"]);
const HTTP_METHODS = new Set(["get", "post", "put", "patch", "delete", "del", "head", "options", "request", "stream", "fetch"]);

const ssrf = rule("an outgoing HTTP request to a URL taken from the request", (context, a) => {
  for (const call of a.nodes.calls) {
    const c = unwrap(call.callee);
    let client = false;
    if (c.type === "Identifier") client = HTTP_CLIENTS.has(c.name) && c.name !== "http" && c.name !== "https";
    else if (c.type === "MemberExpression") client = HTTP_CLIENTS.has(calleeObjectName(call)) && HTTP_METHODS.has(memberProp(c));
    if (!client || call.arguments.length === 0) continue;
    let target = unwrap(call.arguments[0]);
    if (target && target.type === "ObjectExpression") {
      const p = target.properties.find((q) => q.type === "Property" && ["url", "uri", "host", "hostname", "baseURL"].includes(propName(q.key)));
      target = p && p.value;
    }
    if (target && leadsTainted(target, a.isTainted)) {
      report(context, call, "outgoing request to a URL taken from the request (SSRF); allow only known hosts");
    }
  }
});

const openRedirect = rule("a redirect to a location taken from the request", (context, a) => {
  for (const call of a.nodes.calls) {
    const name = calleeName(call);
    if ((name === "redirect" || name === "location") && unwrap(call.callee).type === "MemberExpression" && call.arguments.some((arg) => leadsTainted(arg, a.isTainted))) {
      report(context, call, "redirect to a location taken from the request (open redirect); redirect only to known paths or hosts");
    }
  }
});

const FS_OBJECTS = new Set(["fs", "fsp", "fsPromises", "promises", "fse", "fsExtra"]);
const FS_CALLS = new Set(["createWriteStream", "createReadStream", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "readFile", "readFileSync",
  "unlink", "unlinkSync", "rm", "rmSync", "mkdir", "mkdirSync", "rename", "renameSync", "copyFile", "copyFileSync", "open", "openSync", "outputFile", "outputFileSync"]);

const pathTraversal = rule("a file served, read or written at a path taken from the request or an archive entry", (context, a) => {
  for (const call of a.nodes.calls) {
    const name = calleeName(call);
    if (unwrap(call.callee).type !== "MemberExpression" || call.arguments.length === 0) continue;
    const serve = ["sendFile", "sendfile", "download"].includes(name);
    const fs = FS_CALLS.has(name) && FS_OBJECTS.has(calleeObjectName(call));
    if ((serve || fs) && a.isPathTainted(call.arguments[0])) {
      report(context, call, serve
        ? "file served from a path taken from the request (path traversal); resolve it under a fixed root and check the result stays there"
        : "file opened at a path taken from the request or an archive entry (path traversal, zip slip); resolve it under a fixed root and check the result stays there");
    }
  }
});

const XML_PARSE = new Set(["parseXml", "parseXmlString", "parseXmlAsync", "parseXmlStringAsync", "parseXmlFile"]);
const XXE_IN_CODE = /parseXml(?:String)?(?:Async)?\s*\([^)]*\bnoent\s*:\s*true/;
const VM_RUN = new Set(["runInContext", "runInNewContext", "runInThisContext"]);

function isTrue(node) {
  node = unwrap(node);
  return node && node.type === "Literal" && node.value === true;
}

const xxe = rule("XML parsed with external entity expansion on", (context, a) => {
  for (const call of a.nodes.calls) {
    const name = calleeName(call);
    if (XML_PARSE.has(name)) {
      const opts = call.arguments.map((x) => a.constInit(x)).find((x) => x && x.type === "ObjectExpression");
      if (opts && opts.properties.some((p) => p.type === "Property" && ["noent", "replaceEntities"].includes(propName(p.key)) && isTrue(p.value))) {
        report(context, call, "XML parsed with entity expansion on (noent: true): external entities can read local files (XXE)");
      }
    } else if (VM_RUN.has(name) && call.arguments.length > 0) {
      // The same call written as code for node:vm to run.
      const { text } = staticText(call.arguments[0]);
      if (XXE_IN_CODE.test(text)) {
        report(context, call, "XML parsed with entity expansion on (noent: true) in code run by node:vm: external entities can read local files (XXE)");
      }
    }
  }
});

const vmCode = rule("node:vm running request input, or code that is not a literal", (context, a) => {
  const check = (call, name) => {
    if (call.arguments.length === 0) return;
    const code = unwrap(call.arguments[0]);
    const literal = code && (code.type === "Literal" || (code.type === "TemplateLiteral" && code.expressions.length === 0));
    if (call.arguments.some((arg) => a.isTainted(arg) || a.isTainted(a.constInit(arg)))) {
      report(context, call, "node:vm " + name + " runs with request input; vm is not a security boundary (code injection)");
    } else if (!literal && !staticTextIsLiteral(a.constInit(code))) {
      report(context, call, "node:vm " + name + " runs code that is not a literal; vm is not a security boundary");
    }
  };
  for (const call of a.nodes.calls) {
    const name = calleeName(call);
    if (VM_RUN.has(name) && unwrap(call.callee).type === "MemberExpression") check(call, name);
    else if (name === "compileFunction" && calleeObjectName(call) === "vm") check(call, name);
  }
  for (const n of a.nodes.news) {
    const c = unwrap(n.callee);
    if (c.type === "MemberExpression" && memberProp(c) === "Script" && propName(unwrap(c.object)) === "vm") check(n, "Script");
  }
});

function staticTextIsLiteral(node) {
  return !staticText(node).dynamic;
}

const LOGGERS = new Set(["console", "logger", "log", "winston", "pino", "bunyan"]);
const LOG_METHODS = new Set(["log", "info", "warn", "error", "debug", "trace", "fatal", "verbose", "silly"]);

const logInjection = rule("request input written to a log as is", (context, a) => {
  for (const call of a.nodes.calls) {
    if (!LOGGERS.has(calleeObjectName(call)) || !LOG_METHODS.has(calleeName(call))) continue;
    if (call.arguments.some((arg) => a.isTainted(arg))) {
      report(context, call, "request input written to the log unencoded (log injection: forged lines through CR/LF)");
    }
  }
});

module.exports = {
  meta: { name: "scand", version: "1" },
  rules: {
    "sql-injection": sqlInjection,
    "nosql-injection": nosqlInjection,
    ssrf,
    "open-redirect": openRedirect,
    "path-traversal": pathTraversal,
    xxe,
    "vm-code": vmCode,
    "log-injection": logInjection,
  },
};
