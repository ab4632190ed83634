/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.docs;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Java sources read with the JDK's own parser (syntax only: nothing is compiled or resolved), so the
 * docs checks see exactly the declarations javac sees, with no class path and no build of the modules.
 */
final class JavaSources {

    /** A test method: {@code typeName} is {@code Outer.Nested} inside {@code packageName}. */
    record TestMethod(Path file, String packageName, String typeName, String method, String displayName) {
        String simpleRef() {
            return typeName + "#" + method;
        }

        String qualifiedRef() {
            return packageName + "." + typeName + "#" + method;
        }
    }

    /**
     * A declared type: {@code typeName} is {@code Outer.Nested}; {@code members} are its methods, fields,
     * enum constants, record components and nested types; {@code supertypes} the simple names it extends
     * or implements.
     */
    record TypeDecl(Path file, String packageName, String typeName, Set<String> members, List<String> supertypes) {
        String simpleName() {
            int dot = typeName.lastIndexOf('.');
            return dot < 0 ? typeName : typeName.substring(dot + 1);
        }
    }

    /** Annotations that make a method a JUnit Jupiter test. */
    private static final Set<String> TEST_ANNOTATIONS =
            Set.of("Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate");

    private final List<TestMethod> testMethods = new ArrayList<>();
    private final List<TypeDecl> types = new ArrayList<>();

    private JavaSources() {
    }

    /** Parses {@code files}; a file javac cannot parse is an error naming it. */
    static JavaSources parse(List<Path> files) {
        JavaSources sources = new JavaSources();
        if (files.isEmpty()) {
            return sources;
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            JavacTask task = (JavacTask) javac.getTask(null, fm, diagnostics, List.of("-proc:none"), null,
                    fm.getJavaFileObjectsFromPaths(files));
            Iterable<? extends CompilationUnitTree> units = task.parse();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    throw new IllegalStateException("cannot parse " + d.getSource().getName() + ":"
                            + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
                }
            }
            for (CompilationUnitTree unit : units) {
                Path file = Path.of(unit.getSourceFile().toUri());
                String pkg = unit.getPackageName() == null ? "" : unit.getPackageName().toString();
                new Scanner(sources, file, pkg).scan(unit, null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("parsing " + files.size() + " sources", e);
        }
        return sources;
    }

    List<TestMethod> testMethods() {
        return testMethods;
    }

    List<TypeDecl> types() {
        return types;
    }

    private static final class Scanner extends TreeScanner<Void, Void> {
        private final JavaSources out;
        private final Path file;
        private final String pkg;
        /** Enclosing type names; an empty name is an anonymous class (its members are not addressable). */
        private final Deque<String> enclosing = new ArrayDeque<>();

        Scanner(JavaSources out, Path file, String pkg) {
            this.out = out;
            this.file = file;
            this.pkg = pkg;
        }

        @Override
        public Void visitClass(ClassTree node, Void unused) {
            String name = node.getSimpleName().toString();
            boolean addressable = !name.isEmpty() && !enclosing.contains("");
            enclosing.push(name);
            if (addressable) {
                out.types.add(new TypeDecl(file, pkg, typeName(), members(node), supertypes(node)));
            }
            try {
                return super.visitClass(node, unused);
            } finally {
                enclosing.pop();
            }
        }

        @Override
        public Void visitMethod(MethodTree node, Void unused) {
            if (!enclosing.isEmpty() && !enclosing.contains("")) {
                boolean isTest = false;
                String displayName = "";
                for (AnnotationTree a : node.getModifiers().getAnnotations()) {
                    String simple = simpleName(a.getAnnotationType().toString());
                    if (TEST_ANNOTATIONS.contains(simple)) {
                        isTest = true;
                    } else if (simple.equals("DisplayName") && !a.getArguments().isEmpty()) {
                        displayName = constant(a.getArguments().get(0));
                    }
                }
                if (isTest) {
                    out.testMethods.add(new TestMethod(file, pkg, typeName(), node.getName().toString(), displayName));
                }
            }
            return super.visitMethod(node, unused);
        }

        private String typeName() {
            List<String> names = new ArrayList<>(enclosing);
            java.util.Collections.reverse(names);
            return String.join(".", names);
        }

        private static Set<String> members(ClassTree node) {
            Set<String> members = new LinkedHashSet<>();
            for (Tree member : node.getMembers()) {
                if (member instanceof MethodTree m && !m.getName().contentEquals("<init>")) {
                    members.add(m.getName().toString());
                } else if (member instanceof VariableTree v) {
                    members.add(v.getName().toString());
                } else if (member instanceof ClassTree c) {
                    members.add(c.getSimpleName().toString());
                }
            }
            return members;
        }

        private static List<String> supertypes(ClassTree node) {
            List<String> names = new ArrayList<>();
            if (node.getExtendsClause() != null) {
                names.add(simpleName(node.getExtendsClause().toString()));
            }
            for (Tree t : node.getImplementsClause()) {
                names.add(simpleName(t.toString()));
            }
            return names;
        }
    }

    /** {@code java.util.Map<K, V>} → {@code Map}. */
    static String simpleName(String typeText) {
        String raw = typeText.replaceAll("<.*", "").replaceAll("@\\S+\\s+", "").trim();
        return raw.substring(raw.lastIndexOf('.') + 1);
    }

    /** The value of a constant string expression (a literal or literals joined by +), as javac would fold it. */
    private static String constant(ExpressionTree e) {
        if (e instanceof AssignmentTree a) {
            return constant(a.getExpression());
        }
        if (e instanceof ParenthesizedTree p) {
            return constant(p.getExpression());
        }
        if (e instanceof LiteralTree l) {
            return String.valueOf(l.getValue());
        }
        if (e instanceof BinaryTree b && b.getKind() == Tree.Kind.PLUS) {
            return constant(b.getLeftOperand()) + constant(b.getRightOperand());
        }
        return e.toString();
    }
}
