// The 3D viewer: each 3D response drawn with three.js (vendored, see vendor/three/VERSION.md) in its frame, every
// frame showing the same view. Dragging one frame orbits (left button) or zooms (wheel) all of them; the arrow keys
// turn the focused one, and so all. The file is the blind media URL's (metadata removed by the server). It is
// loaded only on a page that shows a 3D response (viewing.js imports this module then).
import * as THREE from "../vendor/three/three.module.js";
import { GLTFLoader } from "../vendor/three/GLTFLoader.js";
import { OBJLoader } from "../vendor/three/OBJLoader.js";
import { PLYLoader } from "../vendor/three/PLYLoader.js";
import { STLLoader } from "../vendor/three/STLLoader.js";
import { OrbitControls } from "../vendor/three/OrbitControls.js";
import { HOME, MAX_DISTANCE, MIN_DISTANCE, fitScale, poseText, turned, zoomed } from "./orbit.js";

const BACKGROUND = 0xf1f3f6;

// The model as a scene object, from the file's bytes; `format` is the media URL's extension.
async function parsed(buffer, format) {
  if (format === "ply") {
    const geometry = new PLYLoader().parse(buffer);
    const colours = geometry.hasAttribute("color");
    if (!geometry.index) { // vertices without faces: a point cloud
      return new THREE.Points(geometry, new THREE.PointsMaterial({ size: 0.02, vertexColors: colours, color: colours ? 0xffffff : 0x4b5563 }));
    }
    if (!geometry.hasAttribute("normal")) geometry.computeVertexNormals();
    return new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ vertexColors: colours, color: colours ? 0xffffff : 0x9ca3af, side: THREE.DoubleSide }));
  }
  if (format === "stl") {
    const geometry = new STLLoader().parse(buffer);
    // Many exporters write every facet's normal as 0 0 0; lit by those, the solid is drawn black.
    if (!geometry.getAttribute("normal").array.some((component) => component !== 0)) geometry.computeVertexNormals();
    const colours = geometry.hasAttribute("color");
    return new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ vertexColors: colours, color: colours ? 0xffffff : 0x9ca3af, side: THREE.DoubleSide }));
  }
  if (format === "obj") { // the mesh alone: its material libraries are outside files, never fetched
    return new OBJLoader().parse(new TextDecoder().decode(buffer));
  }
  // A GLB carries its buffers and textures; a path of "" leaves nothing outside the file to fetch.
  const gltf = await new GLTFLoader().parseAsync(buffer, "");
  return gltf.scene;
}

// A frame whose model cannot be drawn says why, and offers the file instead.
function failed(frame, message) {
  frame.dataset.model3dLoaded = "error";
  const block = frame.closest("[data-model3d]");
  const status = block?.querySelector("[data-model3d-status]");
  if (status) status.textContent = `${message}; the file can be downloaded instead.`;
  const download = block?.querySelector("[data-model3d-download]");
  if (download) download.hidden = false;
}

// Centred on the origin and scaled to a sphere of radius 1 (orbit.js): one pose, the same view of either model.
function normalised(object) {
  const box = new THREE.Box3().setFromObject(object);
  const holder = new THREE.Group();
  if (box.isEmpty()) { holder.add(object); return holder; }
  const size = box.getSize(new THREE.Vector3());
  const centre = box.getCenter(new THREE.Vector3());
  object.position.sub(centre);
  holder.add(object);
  holder.scale.setScalar(fitScale(size.toArray()));
  return holder;
}

class ModelView {
  constructor(frame, group) {
    this.frame = frame;
    this.group = group;
    this.renderer = new THREE.WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    this.renderer.domElement.setAttribute("aria-hidden", "true");
    frame.append(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(BACKGROUND);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));
    this.camera = new THREE.PerspectiveCamera(40, 4 / 3, 0.01, 100);
    const light = new THREE.DirectionalLight(0xffffff, 2.2);
    light.position.set(1, 2, 3);
    this.camera.add(light); // the light follows the view: the side looked at is always lit
    this.scene.add(this.camera);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    Object.assign(this.controls, { enablePan: false, minDistance: MIN_DISTANCE, maxDistance: MAX_DISTANCE, zoomToCursor: false });
    this.controls.addEventListener("change", () => group.follow(this));
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(frame);
    frame.addEventListener("keydown", (event) => group.key(event));
  }

  async load(url, format) {
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      this.scene.add(normalised(await parsed(await response.arrayBuffer(), format)));
      this.frame.dataset.model3dLoaded = "true";
      const status = this.frame.closest("[data-model3d]")?.querySelector("[data-model3d-status]");
      if (status) status.textContent = "";
    } catch (error) {
      failed(this.frame, `This 3D file cannot be shown here (${error.message})`);
    }
    this.render();
  }

  pose(position) {
    this.camera.position.fromArray(position);
    this.camera.lookAt(this.controls.target);
  }

  resize() {
    const { clientWidth: width, clientHeight: height } = this.frame;
    if (!width || !height) return;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  render() {
    this.renderer.render(this.scene, this.camera);
    this.frame.dataset.camera = poseText(this.camera.position.toArray());
  }

  dispose() {
    this.resizer.disconnect();
    this.controls.dispose();
    this.renderer.dispose();
    this.renderer.forceContextLoss();
  }
}

// Every 3D frame of the page, one view: whichever frame moves, the others take its camera's pose. The target stays
// at the origin (panning is off), where every model is centred.
export class ModelGroup {
  // `onPose(position)` hears every new pose (the toolbar's zoom level, on a page without images to zoom).
  constructor(frames, { onPose = () => {} } = {}) {
    this.following = false;
    this.onPose = onPose;
    try {
      this.views = frames.map((frame) => new ModelView(frame, this));
    } catch (error) {
      this.views = [];
      frames.forEach((frame) => failed(frame, `This browser cannot draw 3D here (${error.message})`));
      return;
    }
    this.reset();
    this.views.forEach((view) => view.load(view.frame.dataset.model3dUrl, view.frame.dataset.model3dFormat));
  }

  follow(leader) {
    if (this.following) return;
    this.following = true;
    const position = leader.camera.position.toArray();
    for (const view of this.views) {
      if (view !== leader) { view.pose(position); view.controls.update(); }
      view.render();
    }
    this.following = false;
    this.onPose(position);
  }

  moveAll(position) {
    this.views.forEach((view) => { view.pose(position); view.render(); });
    this.onPose(position);
  }

  position() {
    return this.views[0]?.camera.position.toArray() ?? [...HOME.position];
  }

  reset() {
    this.moveAll(HOME.position);
  }

  zoom(factor) {
    this.moveAll(zoomed(this.position(), HOME.target, factor));
  }

  turn(key) {
    this.moveAll(turned(this.position(), HOME.target, key));
  }

  // Keys on a focused frame: the arrows turn the models (elsewhere ↑ and ↓ move between questions).
  key(event) {
    if (!event.key.startsWith("Arrow") || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    this.turn(event.key);
  }

  dispose() {
    this.views.forEach((view) => view.dispose());
  }
}
