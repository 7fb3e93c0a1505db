/**
 * The console's forms say a broken rule of the API's schema in plain Spanish, whatever form it
 * is on: zod's own Spanish locale reads "Demasiado pequeño: se esperaba que texto tuviera >=10
 * caracteres".
 */
jest.mock('../../web/console/app/api', () => ({ api: {}, queryClient: {}, ApiError: class ApiError extends Error {} }));

import { z } from 'zod';
import { schemaErrors } from '../../web/console/app/forms';

const schema = z.object({
  answer: z.string().trim().min(10).max(4000),
  name: z.string().trim().min(1).max(3),
  email: z.email(),
  website: z.url(),
  stationId: z.uuid(),
  seats: z.number().int().min(1).max(500),
  share: z.number().gt(0),
  tags: z.array(z.string()).min(1).max(2),
  channel: z.enum(['whatsapp', 'email']),
  phone: z.string().regex(/^\d{10}$/),
});

it('says each broken rule plainly, with the schema’s own figures', () => {
  const errors = schemaErrors(schema, {
    answer: 'Listo.',
    name: 'Cuatro',
    email: 'no-es-un-correo',
    website: 'campana',
    stationId: 'x',
    seats: 0,
    share: 0,
    tags: ['a', 'b', 'c'],
    channel: 'fax',
    phone: '300',
  });
  expect(errors).toEqual({
    answer: 'Escriba al menos 10 caracteres.',
    name: 'Escriba como mucho 3 caracteres.',
    email: 'Escriba un correo válido, como nombre@dominio.co.',
    website: 'Escriba una dirección web completa, como https://campana.co.',
    stationId: 'Elija una opción de la lista.',
    seats: 'Escriba 1 o más.',
    share: 'Escriba un número mayor que 0.',
    tags: 'Elija como mucho 2 opciones.',
    channel: 'Elija una de las opciones.',
    phone: 'Revise lo escrito: no tiene la forma que se espera.',
  });
});

it('asks for an empty or missing field, and keeps a message the form gives for a pattern', () => {
  expect(schemaErrors(schema.pick({ name: true, seats: true }), { name: ' ' })).toEqual({ name: 'Escriba algo en este campo.', seats: 'Este campo es obligatorio.' });
  expect(schemaErrors(schema.pick({ phone: true }), { phone: '300' }, { phone: 'Un celular de 10 dígitos.' })).toEqual({ phone: 'Un celular de 10 dígitos.' });
  expect(schemaErrors(schema.pick({ tags: true }), { tags: [] })).toEqual({ tags: 'Elija al menos 1 opción.' });
});
