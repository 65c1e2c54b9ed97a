// Solid shapes (boxes, lines, dots, digits) tessellated on the CPU, in canvas pixels.
struct Globals {
    // canvas size in pixels
    size: vec2<f32>,
    // the video's destination rectangle (min, max) in canvas pixels; unused here
    rect_min: vec2<f32>,
    rect_max: vec2<f32>,
    _pad: vec2<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;

struct VsIn {
    @location(0) pos: vec2<f32>,
    @location(1) color: vec4<f32>,
};

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(v: VsIn) -> VsOut {
    var o: VsOut;
    let ndc = vec2<f32>(v.pos.x / g.size.x * 2.0 - 1.0, 1.0 - v.pos.y / g.size.y * 2.0);
    o.pos = vec4<f32>(ndc, 0.0, 1.0);
    o.color = v.color;
    return o;
}

@fragment
fn fs_main(i: VsOut) -> @location(0) vec4<f32> {
    return i.color;
}
