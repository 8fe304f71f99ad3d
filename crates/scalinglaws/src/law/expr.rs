//! The law language: text formulas as papers print them (`E + A*N^-alpha + B*D^-beta`), parsed
//! once into an expression tree. Grammar (lowest precedence first):
//!
//! ```text
//! program := (IDENT '=' expr ';')* expr          local definitions, then the law
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := ('-' | '+') unary | power              so -x^2 = -(x^2)
//! power   := atom (('^' | '**') unary)?            right-associative: a^b^c = a^(b^c)
//! atom    := NUMBER | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'
//! ```
//!
//! Functions: `exp log log10 sqrt sigmoid softplus min max`, the elementary functions `sin cos
//! tan atan tanh abs log1p expm1` (radians; `log` is natural), and two-argument `atan2(y, x)` and
//! `pow(a, b)` (the same as `a^b`), and `m4root(g, a)`, the root u in [0, 1] of u = g·(1 − u)^a
//! (the implicit M4 law of Alabdulmohsin et al. 2022; [`crate::law::implicit`]). `softplus(z) = log(1 + exp(z))` is evaluated without
//! overflow (≈ z for large z), so a factor that overflows as written, such as
//! `(1 + (x/d)^(1/f))^(-c*f)`, stays finite as `exp(-c*f*softplus(log(x/d)/f))`. The one named constant is `pi`; every other identifier is a
//! variable or a parameter: `E` is a parameter, not Euler's number. Which identifiers are
//! variables (dataset columns) and which are parameters is decided later, by
//! [`crate::law::Law`].

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    Exp,
    Log,
    Log10,
    Sqrt,
    Sigmoid,
    Min,
    Max,
    Sin,
    Cos,
    Tan,
    Atan,
    Atan2,
    Tanh,
    Abs,
    Pow,
    Log1p,
    Expm1,
    Softplus,
    M4Root,
}

/// The one named constant of the language.
pub const PI_NAME: &str = "pi";

impl Func {
    pub const ALL: [Func; 19] = [
        Func::Exp,
        Func::Log,
        Func::Log10,
        Func::Sqrt,
        Func::Sigmoid,
        Func::Min,
        Func::Max,
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Atan,
        Func::Atan2,
        Func::Tanh,
        Func::Abs,
        Func::Pow,
        Func::Log1p,
        Func::Expm1,
        Func::Softplus,
        Func::M4Root,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Log10 => "log10",
            Func::Sqrt => "sqrt",
            Func::Sigmoid => "sigmoid",
            Func::Min => "min",
            Func::Max => "max",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Atan => "atan",
            Func::Atan2 => "atan2",
            Func::Tanh => "tanh",
            Func::Abs => "abs",
            Func::Pow => "pow",
            Func::Log1p => "log1p",
            Func::Expm1 => "expm1",
            Func::Softplus => "softplus",
            Func::M4Root => "m4root",
        }
    }

    fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max | Func::Atan2 | Func::Pow | Func::M4Root => 2,
            _ => 1,
        }
    }
}

/// An expression tree. Identifiers keep their 0-based character offset for later messages.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Ident { name: String, position: usize },
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

/// A parsed formula: local definitions (`G = ...;`) followed by the law's expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub definitions: Vec<(String, Expr)>,
    pub body: Expr,
}

impl Expr {
    /// Visits every identifier in the tree, in text order.
    pub fn for_each_ident(&self, visit: &mut impl FnMut(&str, usize)) {
        match self {
            Expr::Num(_) => {}
            Expr::Ident { name, position } => visit(name, *position),
            Expr::Neg(a) => a.for_each_ident(visit),
            Expr::Bin(_, a, b) => {
                a.for_each_ident(visit);
                b.for_each_ident(visit);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.for_each_ident(visit)),
        }
    }

    /// Visits every node of the tree, each before its children.
    pub fn for_each_node(&self, visit: &mut impl FnMut(&Expr)) {
        visit(self);
        match self {
            Expr::Num(_) | Expr::Ident { .. } => {}
            Expr::Neg(a) => a.for_each_node(visit),
            Expr::Bin(_, a, b) => {
                a.for_each_node(visit);
                b.for_each_node(visit);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.for_each_node(visit)),
        }
    }

    /// Evaluates on f64 with `lookup` giving the value of each identifier (None: unknown name,
    /// reported by the caller). Used for derived columns, filters and constant grids.
    pub fn eval_f64(&self, lookup: &impl Fn(&str) -> Option<f64>) -> Option<f64> {
        Some(match self {
            Expr::Num(v) => *v,
            Expr::Ident { name, .. } => lookup(name)?,
            Expr::Neg(a) => -a.eval_f64(lookup)?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval_f64(lookup)?, b.eval_f64(lookup)?);
                match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    BinOp::Pow => a.powf(b),
                }
            }
            Expr::Call(f, args) => {
                let x = args[0].eval_f64(lookup)?;
                match f {
                    Func::Exp => x.exp(),
                    Func::Log => x.ln(),
                    Func::Log10 => x.log10(),
                    Func::Sqrt => x.sqrt(),
                    Func::Sigmoid => crate::law::real::sigmoid(x),
                    Func::Min => x.min(args[1].eval_f64(lookup)?),
                    Func::Max => x.max(args[1].eval_f64(lookup)?),
                    Func::Atan2 => x.atan2(args[1].eval_f64(lookup)?),
                    Func::M4Root => crate::law::implicit::m4root(x, args[1].eval_f64(lookup)?),
                    Func::Pow => x.powf(args[1].eval_f64(lookup)?),
                    Func::Sin => x.sin(),
                    Func::Cos => x.cos(),
                    Func::Tan => x.tan(),
                    Func::Atan => x.atan(),
                    Func::Tanh => x.tanh(),
                    Func::Abs => x.abs(),
                    Func::Log1p => x.ln_1p(),
                    Func::Expm1 => x.exp_m1(),
                    Func::Softplus => crate::law::real::softplus(x),
                }
            }
        })
    }
}

impl std::fmt::Display for Expr {
    /// Fully parenthesised where precedence needs it; re-parses to the same tree.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expr::Num(v) => write!(f, "{v:?}"),
            Expr::Ident { name, .. } => write!(f, "{name}"),
            Expr::Neg(a) => write!(f, "(-{a})"),
            Expr::Bin(op, a, b) => {
                let sym = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Pow => "^",
                };
                write!(f, "({a} {sym} {b})")
            }
            Expr::Call(func, args) => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(f64),
    Ident(String),
    Sym(char),
    Pow2, // `**`
    End,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Num(v) => format!("number {v}"),
            Token::Ident(s) => format!("'{s}'"),
            Token::Sym(c) => format!("'{c}'"),
            Token::Pow2 => "'**'".into(),
            Token::End => "end of formula".into(),
        }
    }
}

/// Parses a whole formula (definitions and body).
pub fn parse_program(text: &str) -> Result<Program> {
    let mut parser = Parser::new(text)?;
    let program = parser.program()?;
    for expr in program
        .definitions
        .iter()
        .map(|(_, e)| e)
        .chain([&program.body])
    {
        check_tree_depth(text, expr)?;
    }
    Ok(program)
}

/// Parses a single expression (no definitions).
pub fn parse_expr(text: &str) -> Result<Expr> {
    let mut parser = Parser::new(text)?;
    let expr = parser.expr()?;
    parser.expect_end()?;
    check_tree_depth(text, &expr)?;
    Ok(expr)
}

/// Deepest expression tree a formula may make. Terms in a row nest one level each (a + b + c
/// is (a + b) + c), and every pass over the tree (derivatives, the tape, the bootstrap's
/// workers with their smaller stacks) recurses that deep: a 12,000-term sum overflowed a
/// worker's stack. A law has tens of terms.
pub const MAX_TREE_DEPTH: usize = 1_000;

/// Refuses an expression whose tree is deeper than [`MAX_TREE_DEPTH`] (measured without
/// recursion).
fn check_tree_depth(text: &str, expr: &Expr) -> Result<()> {
    let mut deepest = 0;
    let mut stack = vec![(expr, 1usize)];
    while let Some((e, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match e {
            Expr::Num(_) | Expr::Ident { .. } => {}
            Expr::Neg(a) => stack.push((a, depth + 1)),
            Expr::Bin(_, a, b) => stack.extend([(&**a, depth + 1), (&**b, depth + 1)]),
            Expr::Call(_, args) => stack.extend(args.iter().map(|a| (a, depth + 1))),
        }
    }
    if deepest > MAX_TREE_DEPTH {
        return Err(formula_error(
            text,
            0,
            format!(
                "the formula is {deepest} operations deep (each term or factor in a row adds \
                 one); at most {MAX_TREE_DEPTH}: write the law with fewer terms"
            ),
        ));
    }
    Ok(())
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<(Token, usize)>,
    at: usize,
    depth: usize,
    /// The value of the expression the last parsing step returned, when it is a constant (no
    /// names in it), so that a constant that is not finite is refused where it is written.
    constant: Option<f64>,
}

/// Deepest nesting of parentheses, unary signs and powers a formula may have (recursion guard).
const MAX_DEPTH: usize = 200;

fn formula_error(text: &str, position: usize, message: impl Into<String>) -> Error {
    Error::Formula {
        formula: text.to_string(),
        position,
        message: message.into().into(),
    }
}

fn tokenize(text: &str) -> Result<Vec<(Token, usize)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (value, end) = scan_number(text, &chars, i)?;
            tokens.push((Token::Num(value), i));
            i = end;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push((Token::Ident(chars[start..i].iter().collect()), start));
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            tokens.push((Token::Pow2, i));
            i += 2;
        } else if "+-*/^(),=;".contains(c) {
            tokens.push((Token::Sym(c), i));
            i += 1;
        } else {
            return Err(formula_error(
                text,
                i,
                format!("unexpected character '{c}'; expected a number, a name, an operator (+ - * / ^) or a parenthesis"),
            ));
        }
    }
    tokens.push((Token::End, chars.len()));
    Ok(tokens)
}

/// Scans `123`, `1.5`, `.5`, `6e22`, `1.2E-3`; returns the value and the index after it.
fn scan_number(text: &str, chars: &[char], start: usize) -> Result<(f64, usize)> {
    let mut i = start;
    let digits = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(&mut i);
    if chars.get(i) == Some(&'.') {
        i += 1;
        digits(&mut i);
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+' | '-')) {
            j += 1;
        }
        if chars.get(j).is_some_and(|d| d.is_ascii_digit()) {
            i = j;
            digits(&mut i);
        } else {
            return Err(formula_error(
                text,
                j,
                "expected digits after the exponent 'e' of a number",
            ));
        }
    }
    let literal: String = chars[start..i].iter().collect();
    match literal.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok((v, i)),
        Ok(_) => Err(formula_error(
            text,
            start,
            format!("the number {literal} is beyond the largest double (about 1.8e308)"),
        )),
        Err(_) => Err(formula_error(
            text,
            start,
            format!("'{literal}' is not a number"),
        )),
    }
}

/// Refuses a constant part of a formula (no names in it: `1/0`, `log(0)`, `exp(1000)`) whose
/// value is not a finite number: the law would have no finite value for any parameters, and
/// the fit could only say that no start gave a finite objective.
fn finite_constant(text: &str, position: usize, value: Option<f64>) -> Result<Option<f64>> {
    match value {
        Some(v) if !v.is_finite() => Err(formula_error(
            text,
            position,
            format!(
                "this constant part of the formula is {v} whatever the parameters \
                 (a division by zero or a number beyond the largest double)"
            ),
        )),
        other => Ok(other),
    }
}

/// The value of `a OP b` when both are constants.
fn constant_bin(op: BinOp, a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Expr::Bin(op, Box::new(Expr::Num(a?)), Box::new(Expr::Num(b?))).eval_f64(&|_| None)
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Result<Self> {
        if let Some(problem) = crate::limits::formula_bytes_problem(text.len()) {
            return Err(Error::settings(format!(
                "the formula or expression: {problem}"
            )));
        }
        Ok(Parser {
            text,
            tokens: tokenize(text)?,
            at: 0,
            depth: 0,
            constant: None,
        })
    }

    fn peek(&self) -> &Token {
        &self.tokens[self.at].0
    }

    fn position(&self) -> usize {
        self.tokens[self.at].1
    }

    fn advance(&mut self) -> (Token, usize) {
        let token = self.tokens[self.at].clone();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        token
    }

    fn error_expected(&self, what: &str) -> Error {
        formula_error(
            self.text,
            self.position(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    fn expect_sym(&mut self, c: char, what: &str) -> Result<()> {
        if *self.peek() == Token::Sym(c) {
            self.advance();
            Ok(())
        } else {
            Err(self.error_expected(what))
        }
    }

    fn expect_end(&self) -> Result<()> {
        match self.peek() {
            Token::End => Ok(()),
            Token::Sym(')') => Err(formula_error(self.text, self.position(), "unmatched ')'")),
            _ => Err(self.error_expected("an operator or the end of the formula")),
        }
    }

    fn program(&mut self) -> Result<Program> {
        let mut definitions = Vec::new();
        while let (Token::Ident(name), Token::Sym('=')) = (
            self.peek().clone(),
            &self.tokens[(self.at + 1).min(self.tokens.len() - 1)].0,
        ) {
            let position = self.position();
            if Func::from_name(&name).is_some()
                || name == PI_NAME
                || definitions.iter().any(|(n, _): &(String, Expr)| *n == name)
            {
                return Err(formula_error(
                    self.text,
                    position,
                    format!("'{name}' is already defined"),
                ));
            }
            self.advance();
            self.advance();
            let value = self.expr()?;
            self.expect_sym(';', "';' after a definition")?;
            definitions.push((name, value));
        }
        if *self.peek() == Token::End {
            return Err(self.error_expected("an expression"));
        }
        let body = self.expr()?;
        self.expect_end()?;
        Ok(Program { definitions, body })
    }

    fn expr(&mut self) -> Result<Expr> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek() {
                Token::Sym('+') => BinOp::Add,
                Token::Sym('-') => BinOp::Sub,
                _ => return Ok(left),
            };
            let (_, position) = self.advance();
            let left_constant = self.constant;
            let right = self.term()?;
            self.combine_constants(op, left_constant, position)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    fn term(&mut self) -> Result<Expr> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Token::Sym('*') => BinOp::Mul,
                Token::Sym('/') => BinOp::Div,
                _ => return Ok(left),
            };
            let (_, position) = self.advance();
            let left_constant = self.constant;
            let right = self.unary()?;
            self.combine_constants(op, left_constant, position)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    /// After the right operand of `left OP right` (whose constant value is `self.constant`),
    /// the value of the whole, checked finite; `position` is the operator's.
    fn combine_constants(&mut self, op: BinOp, left: Option<f64>, position: usize) -> Result<()> {
        let value = constant_bin(op, left, self.constant);
        self.constant = finite_constant(self.text, position, value)?;
        Ok(())
    }

    fn unary(&mut self) -> Result<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(formula_error(
                self.text,
                self.position(),
                format!("the formula nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Expr> {
        match self.peek() {
            Token::Sym('-') => {
                self.advance();
                let inner = self.unary()?;
                self.constant = self.constant.map(|v| -v);
                Ok(Expr::Neg(Box::new(inner)))
            }
            Token::Sym('+') => {
                self.advance();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr> {
        let base = self.atom()?;
        if matches!(self.peek(), Token::Sym('^') | Token::Pow2) {
            let (_, position) = self.advance();
            let base_constant = self.constant;
            let exponent = self.unary()?;
            self.combine_constants(BinOp::Pow, base_constant, position)?;
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr> {
        let (token, position) = self.advance();
        self.constant = None;
        match token {
            Token::Num(v) => {
                self.constant = Some(v);
                Ok(Expr::Num(v))
            }
            Token::Ident(name) if *self.peek() == Token::Sym('(') => self.call(name, position),
            Token::Ident(name) if name == PI_NAME => {
                self.constant = Some(std::f64::consts::PI);
                Ok(Expr::Num(std::f64::consts::PI))
            }
            Token::Ident(name) => Ok(Expr::Ident { name, position }),
            Token::Sym('(') => {
                let inner = self.expr()?;
                self.expect_sym(')', "')' to close the parenthesis")?;
                Ok(inner)
            }
            _ => {
                self.at -= usize::from(token != Token::End);
                Err(self.error_expected("a number, a name or '('"))
            }
        }
    }

    fn call(&mut self, name: String, position: usize) -> Result<Expr> {
        let func = Func::from_name(&name).ok_or_else(|| {
            let names = Func::ALL.map(|f| f.name());
            let hint = crate::suggest::closest(&name, names)
                .map(|s| format!(" (did you mean '{s}'?)"))
                .unwrap_or_default();
            formula_error(
                self.text,
                position,
                format!(
                    "unknown function '{name}'{hint}; known functions: {}",
                    names.join(" ")
                ),
            )
        })?;
        self.advance(); // '('
        let mut args = vec![self.expr()?];
        let mut constants = vec![self.constant];
        while *self.peek() == Token::Sym(',') {
            self.advance();
            args.push(self.expr()?);
            constants.push(self.constant);
        }
        if args.len() != func.arity() {
            return Err(formula_error(
                self.text,
                position,
                format!(
                    "{name}() takes {} argument(s), found {}",
                    func.arity(),
                    args.len()
                ),
            ));
        }
        self.expect_sym(')', "',' or ')' in the argument list")?;
        let value = constants
            .iter()
            .map(|c| c.map(Expr::Num))
            .collect::<Option<Vec<Expr>>>()
            .and_then(|numbers| Expr::Call(func, numbers).eval_f64(&|_| None));
        self.constant = finite_constant(self.text, position, value)?;
        if func == Func::Pow {
            // pow(a, b) is a^b: one operation, one set of derivative rules.
            let mut args = args.into_iter();
            let (Some(base), Some(exponent)) = (args.next(), args.next()) else {
                return Err(formula_error(
                    self.text,
                    position,
                    "pow() takes 2 argument(s)",
                ));
            };
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(Expr::Call(func, args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        parse_expr(text).unwrap().to_string()
    }

    fn error_position(text: &str) -> (usize, String) {
        match parse_program(text) {
            Err(Error::Formula {
                position, message, ..
            }) => (position, message.to_string()),
            other => panic!("expected a formula error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(show("-x^2"), "(-(x ^ 2.0))");
        assert_eq!(show("a^b^c"), "(a ^ (b ^ c))");
        assert_eq!(show("N^-alpha"), "(N ^ (-alpha))");
        assert_eq!(show("a - b - c"), "((a - b) - c)");
        assert_eq!(show("a / b * c"), "((a / b) * c)");
        assert_eq!(show("2**3"), "(2.0 ^ 3.0)");
        assert_eq!(
            show("E + A*N^-alpha + B*D^-beta"),
            "((E + (A * (N ^ (-alpha)))) + (B * (D ^ (-beta))))"
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_expr("6e22").unwrap(), Expr::Num(6e22));
        assert_eq!(parse_expr("1.5E-3").unwrap(), Expr::Num(1.5e-3));
        assert_eq!(parse_expr(".25").unwrap(), Expr::Num(0.25));
    }

    #[test]
    fn e_is_an_identifier() {
        assert!(matches!(parse_expr("E").unwrap(), Expr::Ident { .. }));
        assert!(matches!(parse_expr("e").unwrap(), Expr::Ident { .. }));
    }

    #[test]
    fn definitions() {
        let p = parse_program("G = a*b; H = G^2; G + H").unwrap();
        assert_eq!(p.definitions.len(), 2);
        assert_eq!(p.body.to_string(), "(G + H)");
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "min(a, b^-c) / sigmoid(-x)",
            "exp(-c*f*softplus(log(x/d)/f))",
            "exp(log(x) * 2) - log10(y) + sqrt(z)",
            "-(a+b)^2",
        ] {
            let once = parse_expr(text).unwrap().to_string();
            assert_eq!(parse_expr(&once).unwrap().to_string(), once);
        }
    }

    #[test]
    fn syntax_errors_name_the_position() {
        assert_eq!(error_position("E + A*N^").0, 8);
        assert_eq!(error_position("E + * A").0, 4);
        assert_eq!(error_position("(a + b").0, 6);
        assert_eq!(error_position("a + b)").0, 5);
        assert_eq!(error_position("a $ b").0, 2);
        assert_eq!(error_position("").0, 0);
        assert_eq!(error_position("a b").0, 2);
        assert_eq!(error_position("1e+").0, 3);
        let (pos, msg) = error_position("E + lg(N)");
        assert_eq!(pos, 4);
        assert!(
            msg.contains("unknown function 'lg'") && msg.contains("did you mean"),
            "{msg}"
        );
        let (pos, msg) = error_position("min(a)");
        assert_eq!(pos, 0);
        assert!(msg.contains("takes 2"), "{msg}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(error_position(&deep).1.contains("nests deeper"));
        assert!(error_position(&"-".repeat(10_000))
            .1
            .contains("nests deeper"));
        assert!(parse_expr(&format!("{}a{}", "(".repeat(50), ")".repeat(50))).is_ok());
    }

    #[test]
    fn error_message_shows_a_caret() {
        let err = parse_program("E + A*N^").unwrap_err().to_string();
        assert!(err.contains("character 9"), "{err}");
        assert!(err.contains("expected a number, a name or '('"), "{err}");
        assert!(err.ends_with("        ^"), "{err}");
    }

    #[test]
    fn elementary_functions_and_pi() {
        let e = parse_expr(
            "atan2(1, -1) + pow(2, 3) + sin(pi/2) + abs(-2) + log1p(0) + expm1(0) + softplus(800)",
        )
        .unwrap();
        let v = e.eval_f64(&|_| None).unwrap();
        let want = 0.75 * std::f64::consts::PI + 8.0 + 1.0 + 2.0 + 800.0;
        assert!((v - want).abs() < 1e-12, "{v}");
        assert_eq!(show("pow(a, b)"), "(a ^ b)");
        assert!(matches!(parse_expr("pi").unwrap(), Expr::Num(_)));
        assert!(error_position("pi = 3; pi*x").1.contains("already defined"));
        assert!(error_position("atan2(x)").1.contains("takes 2"));
    }

    #[test]
    fn eval_f64_uses_lookup() {
        let e = parse_expr("C/(6*N)").unwrap();
        let v = e.eval_f64(&|n| match n {
            "C" => Some(6e20),
            "N" => Some(1e9),
            _ => None,
        });
        assert!((v.unwrap() - 1e11).abs() < 1.0);
        assert!(e.eval_f64(&|_| None).is_none());
    }
}
