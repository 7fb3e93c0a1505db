import { Alert, Anchor, Button, FileInput, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, queryClient } from '../app/api';
import { downloadFile } from '../app/files';
import { formatDateTime, formatFileSize } from '../app/format';
import { problemMessage, type ProblemMessages } from '../app/problems';
import { requestKey, historyKey, type PqrsRequest } from './data';
import { Section } from './Section';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** What the API accepts, by type and by the name's ending (a browser may not know a .docx's type). */
const TYPES: Record<string, string> = { pdf: 'application/pdf', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', docx: DOCX };
const KINDS: Record<string, string> = { 'application/pdf': 'PDF', 'image/jpeg': 'Imagen JPEG', 'image/png': 'Imagen PNG', [DOCX]: 'Documento de Word' };
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_FILES = 10;

const PROBLEMS: ProblemMessages = {
  attachment_type_mismatch: 'El archivo no es un PDF, una imagen JPEG o PNG ni un documento de Word (.docx), o su contenido no corresponde a su extensión.',
  executable_refused: 'Los programas y scripts nunca se aceptan como adjuntos.',
  too_many_attachments: `Una solicitud admite como máximo ${MAX_FILES} adjuntos.`,
  request_closed: 'La solicitud está cerrada: ya no admite adjuntos.',
  payload_too_large: 'El archivo pesa más de 10 MB.',
};

function typeOf(file: File): string | undefined {
  if (Object.values(TYPES).includes(file.type)) return file.type;
  return TYPES[file.name.split('.').pop()?.toLowerCase() ?? ''];
}

/** The request's files: each downloads with the session's token; those who handle it attach more (PDF, JPEG, PNG, Word; 10 MB). */
export function Attachments({ request, mayHandle }: { request: PqrsRequest; mayHandle: boolean }) {
  const attachments = request.personal?.attachments ?? [];
  const [file, setFile] = useState<File | null>(null);
  const [uploading, setUploading] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const mayAttach = mayHandle && request.status !== 'closed' && attachments.length < MAX_FILES;

  const upload = async () => {
    if (!file) return setMessage({ ok: false, text: 'Elija un archivo.' });
    const type = typeOf(file);
    if (!type) return setMessage({ ok: false, text: PROBLEMS.attachment_type_mismatch as string });
    if (file.size > MAX_BYTES) return setMessage({ ok: false, text: PROBLEMS.payload_too_large as string });
    setUploading(true);
    setMessage(null);
    try {
      const typed = file.type === type ? file : new Blob([file], { type });
      await api.postFile(`/api/pqrs/${request.id}/attachments?fileName=${encodeURIComponent(file.name.slice(0, 300))}`, typed);
      setMessage({ ok: true, text: `Se adjuntó ${file.name}.` });
      setFile(null);
      await Promise.all([queryClient.invalidateQueries({ queryKey: requestKey(request.id) }), queryClient.invalidateQueries({ queryKey: historyKey(request.id) })]);
    } catch (error) {
      setMessage({ ok: false, text: problemMessage(error, PROBLEMS) });
    } finally {
      setUploading(false);
    }
  };

  const download = async (attachment: (typeof attachments)[number]) => {
    try {
      await downloadFile(`/api/pqrs/${request.id}/attachments/${attachment.id}`, attachment.fileName);
    } catch (error) {
      setMessage({ ok: false, text: problemMessage(error) });
    }
  };

  return (
    <Section title="Adjuntos" id="pqrs-attachments">
      <Stack gap="sm">
        {attachments.length === 0 ? (
          <Text size="sm" c="dimmed">
            Sin adjuntos.
          </Text>
        ) : (
          <Stack component="ul" gap="xs" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {attachments.map((attachment) => (
              <li key={attachment.id}>
                <Anchor component="button" type="button" onClick={() => void download(attachment)} aria-label={`Descargar ${attachment.fileName}`} fw={600} fz="sm">
                  {attachment.fileName}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {KINDS[attachment.type] ?? attachment.type} · {formatFileSize(attachment.size)} · {formatDateTime(attachment.uploadedAt)}
                </Text>
              </li>
            ))}
          </Stack>
        )}
        {message && (
          <Alert color={message.ok ? 'green' : 'red'} variant="light" role={message.ok ? 'status' : 'alert'} c="dark">
            {message.text}
          </Alert>
        )}
        {mayAttach && (
          <Group align="flex-end" gap="sm">
            <FileInput
              label="Adjuntar un archivo"
              description="PDF, JPEG, PNG o Word (.docx), hasta 10 MB"
              placeholder="Elegir archivo"
              accept={[...new Set(Object.values(TYPES)), '.docx'].join(',')}
              value={file}
              onChange={setFile}
              clearable
              w={300}
              // Mantine's placeholder grey is below AA contrast; here it is the button's only text.
              styles={{ placeholder: { color: 'var(--mantine-color-gray-7)' } }}
            />
            <Button variant="default" onClick={() => void upload()} loading={uploading} disabled={!file}>
              Subir
            </Button>
          </Group>
        )}
      </Stack>
    </Section>
  );
}
