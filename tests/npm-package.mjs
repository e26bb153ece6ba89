// The widget's npm package as an integrator gets it: packed from the built
// site by scripts/build-npm.sh, installed from its tarball (no network) into
// a scratch project under `dir`.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

/** Packs the package from `site` and installs it into `<dir>/project`; returns {project, pkg} (pkg: its folder in node_modules). */
export function installPackage(dir, site = path.resolve("target/site")) {
  execFileSync("bash", ["scripts/build-npm.sh"], { env: { ...process.env, SITE: site }, stdio: "ignore" });
  const tgz = fs.readdirSync("target/npm").find((f) => f.endsWith(".tgz"));
  const project = path.join(dir, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", private: true }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", path.resolve("target/npm", tgz)], { cwd: project, stdio: "ignore" });
  return { project, pkg: path.join(project, "node_modules/registry-picker") };
}
