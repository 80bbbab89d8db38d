"""The options of JavaScript and Ruby test runners, linters and compilers that write or
run something else (``jest --setupFiles=../x.js``, ``eslint --rulesdir``, ``tsc --outDir``,
``rspec --require``): tables as in ``tool_options``. A JavaScript configuration is code,
so one named outside the project counts as running something.

For a reporter, environment, formatter or configuration a bare name
(``--reporters=jest-junit``, ``--env=jsdom``, ``-f json``) is a package the project has
installed and counts as inside it; a plugin (``--plugin``) counts whatever it names.

Parsers: yargs (jest, mocha) and cac (vitest) take whole names and read ``--setup-files``
as ``--setupFiles``, hence ``fold``; tsc takes one dash or two and ignores case;
optionator (eslint) and prettier's take whole names as written; Ruby's OptionParser
(rspec) takes any unambiguous prefix.
"""

from __future__ import annotations

from nehanda.permissions.tool_options import OptionTable, inside, lines, when

_OTHER_OPTIONS = "reads more options from a file nehanda cannot see"
_REPORT = "writes a report where it says"

_JS_CONFIG = "reads a configuration from outside the project, which is code"
_JS_MODULE = "loads a module from outside the project, which is code"
_ELSEWHERE = "runs tests from outside the project"

JEST = OptionTable(
    lines("""
--outputFile,--coverageDirectory,--cacheDirectory: writes where it says
-u,--updateSnapshot: rewrites the snapshot files
"""),
    lines(f"""
-c,--config: {_JS_CONFIG}
--setupFiles,--setupFilesAfterEnv,--globalSetup,--globalTeardown,--transform: {_JS_MODULE}
--reporters,--testRunner,--runner,--resolver,--testSequencer,--preset: {_JS_MODULE}
--snapshotResolver,--testResultsProcessor,--watchPlugins,--filter: {_JS_MODULE}
--haste,--moduleNameMapper,--dependencyExtractor,--prettierPath: {_JS_MODULE}
--testEnvironment,--env: {_JS_MODULE}
--rootDir,--roots,--projects,--modulePaths,--moduleDirectories: {_ELSEWHERE}
"""),
    values="ctw",
    fold=True,
    harmless_if=when(
        inside,
        "-c --config --setupFiles --setupFilesAfterEnv --globalSetup --globalTeardown "
        "--rootDir --roots --testEnvironment --env --reporters",
    ),
)

VITEST = OptionTable(
    lines("""
--outputFile,--coverage.reportsDirectory,--cache.dir,--attachmentsDir: writes where it says
-u,--update: rewrites the snapshot files
"""),
    lines(f"""
-c,--config,--workspace: {_JS_CONFIG}
--setupFiles,--globalSetup,--reporter,--environment,--pool,--diff: {_JS_MODULE}
--coverage.customProviderModule: {_JS_MODULE}
-r,--root,--dir,--project: {_ELSEWHERE}
--inspect,--inspectBrk,--api,--ui,--browser: opens a port or a browser that can run code
"""),
    values="crt",
    fold=True,
    harmless_if=when(
        inside,
        "-c --config --workspace --setupFiles --globalSetup -r --root --dir --reporter "
        "--environment --pool --project",
    ),
)

MOCHA = OptionTable(
    lines("""
-O,--reporter-option,--reporter-options: can name a file to write
"""),
    lines(f"""
-r,--require,--import,--loader,--experimental-loader,-n,--node-option: {_JS_MODULE}
--config,--package: {_JS_CONFIG}
-R,--reporter,-u,--ui,--file: {_JS_MODULE}
--inspect,--inspect-brk: opens a debugger port through which code can run
"""),
    values="rOnRugfst",
    fold=True,
    harmless_if=when(inside, "-r --require --config --package --file -R --reporter -u --ui"),
)

ESLINT = OptionTable(
    lines("""
-o,--output-file,--cache-location: writes where it says
--fix: changes the files it checks
"""),
    lines(f"""
-c,--config: {_JS_CONFIG}
--rulesdir,--plugin,--parser,--resolve-plugins-relative-to: {_JS_MODULE}
-f,--format: can load a formatter from any file
--init,--inspect-config: installs or runs other packages
"""),
    values="ocf",
    harmless_if=when(inside, "-c --config --rulesdir -f --format"),
)

PRETTIER = OptionTable(
    lines("""
-w,--write: rewrites the files it checks
--cache-location: writes its cache where it says
"""),
    lines(f"""
--config: {_JS_CONFIG}
--plugin,--plugin-search-dir,--parser: {_JS_MODULE}
"""),
    harmless_if=when(inside, "--config --parser"),
)

TSC = OptionTable(
    lines("""
--outDir,--outFile,--out,--declarationDir,--tsBuildInfoFile: writes where it says
--generateTrace,--generateCpuProfile: writes where it says
-p,--project: reads a configuration from outside the project, which can write anywhere
"""),
    lines(f"""
@: {_OTHER_OPTIONS}
"""),
    values="p",
    fold=True,
    single_dash=True,
    at_files=True,
    harmless_if=when(inside, "-p --project"),
)

RSPEC = OptionTable(
    lines(f"""
-o,--out,--deprecation-out: {_REPORT}
"""),
    lines(f"""
-r,--require,-I: loads Ruby code from outside the project
--options: {_OTHER_OPTIONS}
"""),
    values="roIfetP",
    abbreviations=True,
    harmless_if=when(inside, "-r --require -I"),
)

TABLES: dict[str, OptionTable] = {
    "jest": JEST,
    "vitest": VITEST,
    "mocha": MOCHA,
    "eslint": ESLINT,
    "prettier": PRETTIER,
    "tsc": TSC,
    "rspec": RSPEC,
}
