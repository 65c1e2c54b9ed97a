// The current video frame, scaled into its destination rectangle (letterboxed in the canvas).
struct Globals {
    size: vec2<f32>,
    rect_min: vec2<f32>,
    rect_max: vec2<f32>,
    _pad: vec2<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var frame: texture_2d<f32>;
@group(1) @binding(1) var frame_sampler: sampler;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VsOut {
    // two triangles: 0 1 2, 2 1 3 over the corners (0,0) (1,0) (0,1) (1,1)
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
    );
    let c = corners[i];
    let p = g.rect_min + (g.rect_max - g.rect_min) * c;
    var o: VsOut;
    o.pos = vec4<f32>(p.x / g.size.x * 2.0 - 1.0, 1.0 - p.y / g.size.y * 2.0, 0.0, 1.0);
    o.uv = c;
    return o;
}

@fragment
fn fs_main(i: VsOut) -> @location(0) vec4<f32> {
    return textureSample(frame, frame_sampler, i.uv);
}
