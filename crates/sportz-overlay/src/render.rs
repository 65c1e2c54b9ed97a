//! The wgpu side: two pipelines (the video texture, then the tessellated marks) drawn into any
//! texture view — a window's surface or an offscreen texture read back for PNGs.

use wgpu::util::DeviceExt as _;

use crate::OverlayError;
use crate::geometry::{Vertex, fit, tessellate};
use crate::scene::Scene;

/// Every shader the overlay uses, by file name (the naga test validates each).
pub const SHADERS: [(&str, &str); 2] = [
    ("shape.wgsl", include_str!("shaders/shape.wgsl")),
    ("video.wgsl", include_str!("shaders/video.wgsl")),
];

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    size: [f32; 2],
    rect_min: [f32; 2],
    rect_max: [f32; 2],
    pad: [f32; 2],
}

struct VideoTexture {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
    size: (u32, u32),
    rgba: Vec<u8>,
}

/// Draws scenes with one device. Create it once; [`Renderer::render`] each frame.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    video_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    shape_pipeline: wgpu::RenderPipeline,
    video_pipeline: wgpu::RenderPipeline,
    video: Option<VideoTexture>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer").finish_non_exhaustive()
    }
}

impl Renderer {
    /// Builds the pipelines for targets of `format`.
    #[must_use]
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Self {
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overlay globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overlay globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overlay globals"),
            layout: &globals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let video_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overlay video"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("overlay video"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let pipeline = |name: &str,
                        src: &str,
                        layouts: &[&wgpu::BindGroupLayout],
                        vertex: &[wgpu::VertexBufferLayout<'_>]| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(name),
                bind_group_layouts: &layouts.iter().map(|l| Some(*l)).collect::<Vec<_>>(),
                ..Default::default()
            });
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    buffers: &vertex.iter().cloned().map(Some).collect::<Vec<_>>(),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                }),
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                multiview_mask: None,
                cache: None,
            })
        };
        let vertex_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Vertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x4],
        };
        let shape_pipeline = pipeline(
            "shape.wgsl",
            SHADERS[0].1,
            &[&globals_layout],
            &[vertex_layout],
        );
        let video_pipeline = pipeline(
            "video.wgsl",
            SHADERS[1].1,
            &[&globals_layout, &video_layout],
            &[],
        );
        Self {
            device: device.clone(),
            queue: queue.clone(),
            globals,
            globals_group,
            video_layout,
            sampler,
            shape_pipeline,
            video_pipeline,
            video: None,
        }
    }

    /// Draws `scene` into `target` (a view of a `canvas`-sized texture of the renderer's format).
    pub fn render(&mut self, scene: &Scene, target: &wgpu::TextureView, canvas: (u32, u32)) {
        let dest = fit(scene.frame_size, canvas);
        let globals = Globals {
            size: [canvas.0 as f32, canvas.1 as f32],
            rect_min: [dest.x, dest.y],
            rect_max: [dest.x + dest.w, dest.y + dest.h],
            pad: [0.0; 2],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        if let Some(image) = &scene.video {
            self.upload_video(image);
        }
        let mesh = tessellate(scene, canvas);
        let vertices = (!mesh.vertices.is_empty()).then(|| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("overlay marks"),
                    contents: bytemuck::cast_slice(&mesh.vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("overlay"),
            });
        {
            let [r, g, b, a] = scene.background.to_f32().map(f64::from);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    resolve_target: None,
                    depth_slice: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_bind_group(0, &self.globals_group, &[]);
            if let (Some(_), Some(video)) = (&scene.video, &self.video) {
                pass.set_pipeline(&self.video_pipeline);
                pass.set_bind_group(1, &video.bind_group, &[]);
                pass.draw(0..6, 0..1);
            }
            if let Some(vb) = &vertices {
                pass.set_pipeline(&self.shape_pipeline);
                pass.set_vertex_buffer(0, vb.slice(..));
                pass.draw(0..mesh.vertices.len() as u32, 0..1);
            }
        }
        self.queue.submit([encoder.finish()]);
    }

    fn upload_video(&mut self, image: &crate::VideoImage) {
        let size = (image.width, image.height);
        if self.video.as_ref().is_none_or(|v| v.size != size) {
            let texture = self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("overlay video"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("overlay video"),
                layout: &self.video_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                ],
            });
            self.video = Some(VideoTexture {
                texture,
                bind_group,
                size,
                rgba: Vec::new(),
            });
        }
        let Some(video) = self.video.as_mut() else {
            return;
        };
        video.rgba.clear();
        video.rgba.reserve(image.rgb.len() / 3 * 4);
        for px in image.rgb.chunks_exact(3) {
            video.rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
        self.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &video.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &video.rgba,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * size.0),
                rows_per_image: Some(size.1),
            },
            wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
        );
    }
}

/// A picked GPU: device, queue and what the adapter is.
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.adapter.get_info().name)
            .finish_non_exhaustive()
    }
}

impl Gpu {
    /// The adapter's name and backend, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`.
    #[must_use]
    pub fn describe(&self) -> String {
        let i = self.adapter.get_info();
        format!("{} ({:?})", i.name, i.backend)
    }

    /// Whether the adapter is the CPU (lavapipe/llvmpipe, WARP): drawing costs CPU time there.
    #[must_use]
    pub fn software(&self) -> bool {
        self.adapter.get_info().device_type == wgpu::DeviceType::Cpu
    }

    /// Picks an adapter (compatible with `surface` when given) and opens a device on it.
    ///
    /// # Errors
    /// No adapter (no Vulkan/GL driver at all) or the device could not be opened.
    pub fn new(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, OverlayError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: surface,
            ..Default::default()
        }))
        .map_err(|e| OverlayError::NoAdapter(e.to_string()))?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sportz overlay"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| OverlayError::Device(e.to_string()))?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// The first instance to try: Vulkan/Metal/DX12 only (lavapipe when there is no GPU), since
    /// probing GL with no display logs EGL errors; `WGPU_BACKEND` overrides. Fall back to
    /// [`Gpu::instance`] when it gives no adapter.
    #[must_use]
    pub fn preferred_instance() -> wgpu::Instance {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        if std::env::var_os("WGPU_BACKEND").is_none() {
            desc.backends = wgpu::Backends::PRIMARY;
        }
        wgpu::Instance::new(desc)
    }

    /// A new instance with every backend wgpu was built with (`WGPU_BACKEND` narrows it); for
    /// windows pass their display (the GL backend needs it).
    #[must_use]
    pub fn instance(display: Option<Box<dyn wgpu::wgt::WgpuHasDisplayHandle>>) -> wgpu::Instance {
        let desc = match display {
            Some(d) => wgpu::InstanceDescriptor::new_with_display_handle_from_env(d),
            None => wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
        };
        wgpu::Instance::new(desc)
    }
}

/// Renders scenes into an offscreen texture and reads them back as RGBA8.
pub struct Offscreen {
    gpu: Gpu,
    renderer: Renderer,
    texture: wgpu::Texture,
    readback: wgpu::Buffer,
    size: (u32, u32),
    padded_row: u32,
}

impl std::fmt::Debug for Offscreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offscreen")
            .field("gpu", &self.gpu)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// An RGBA8 image, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl RgbaImage {
    /// The pixel at `(x, y)`.
    #[must_use]
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [
            self.data[i],
            self.data[i + 1],
            self.data[i + 2],
            self.data[i + 3],
        ]
    }

    /// Encodes it as PNG.
    ///
    /// # Errors
    /// Only if the encoder fails (it writes to memory).
    pub fn to_png(&self) -> Result<Vec<u8>, OverlayError> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc
            .write_header()
            .map_err(|e| OverlayError::Png(e.to_string()))?;
        w.write_image_data(&self.data)
            .map_err(|e| OverlayError::Png(e.to_string()))?;
        w.finish().map_err(|e| OverlayError::Png(e.to_string()))?;
        Ok(out)
    }

    /// Decodes an RGBA8 (or RGB8) PNG.
    ///
    /// # Errors
    /// Not a PNG, or another colour type or depth.
    pub fn from_png(bytes: &[u8]) -> Result<Self, OverlayError> {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .map_err(|e| OverlayError::Png(e.to_string()))?;
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| OverlayError::Png(e.to_string()))?;
        let data = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => buf[..info.buffer_size()].to_vec(),
            (png::ColorType::Rgb, png::BitDepth::Eight) => buf[..info.buffer_size()]
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            (c, d) => {
                return Err(OverlayError::Png(format!(
                    "expected an 8-bit RGB or RGBA PNG, found {c:?} {d:?}"
                )));
            }
        };
        Ok(Self {
            width: info.width,
            height: info.height,
            data,
        })
    }
}

impl Offscreen {
    /// An offscreen canvas of `width × height` on the first adapter found (lavapipe when there
    /// is no GPU).
    ///
    /// # Errors
    /// See [`Gpu::new`]; a zero size.
    pub fn new(width: u32, height: u32) -> Result<Self, OverlayError> {
        if width == 0 || height == 0 || width > 8192 || height > 8192 {
            return Err(OverlayError::Size(width, height));
        }
        let gpu = Gpu::new(Gpu::preferred_instance(), None)
            .or_else(|_| Gpu::new(Gpu::instance(None), None))?;
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let renderer = Renderer::new(&gpu.device, &gpu.queue, format);
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("overlay offscreen"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (4 * width).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overlay readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Self {
            gpu,
            renderer,
            texture,
            readback,
            size: (width, height),
            padded_row,
        })
    }

    /// The adapter in use.
    #[must_use]
    pub fn describe(&self) -> String {
        self.gpu.describe()
    }

    /// Whether the adapter is the CPU ([`Gpu::software`]).
    #[must_use]
    pub fn software(&self) -> bool {
        self.gpu.software()
    }

    /// The canvas size.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Renders `scene` and reads the pixels back.
    ///
    /// # Errors
    /// The readback failed (device lost).
    pub fn render(&mut self, scene: &Scene) -> Result<RgbaImage, OverlayError> {
        let view = self
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.renderer.render(scene, &view, self.size);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.size.1),
                },
            },
            wgpu::Extent3d {
                width: self.size.0,
                height: self.size.1,
                depth_or_array_layers: 1,
            },
        );
        self.gpu.queue.submit([encoder.finish()]);
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| OverlayError::Device(e.to_string()))?;
        rx.recv()
            .map_err(|e| OverlayError::Device(e.to_string()))?
            .map_err(|e| OverlayError::Device(e.to_string()))?;
        let mut data = Vec::with_capacity((self.size.0 * self.size.1 * 4) as usize);
        {
            let mapped = slice
                .get_mapped_range()
                .map_err(|e| OverlayError::Device(e.to_string()))?;
            for row in mapped.chunks(self.padded_row as usize) {
                data.extend_from_slice(&row[..(self.size.0 * 4) as usize]);
            }
        }
        self.readback.unmap();
        Ok(RgbaImage {
            width: self.size.0,
            height: self.size.1,
            data,
        })
    }
}
